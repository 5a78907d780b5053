"""`validate .tfpolicy.yaml` judges the file as a configuration, as the hook does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)


@pytest.mark.parametrize(("config", "code", "said"), [
    ("policies: [takeover-1]\n", 0, "1 policies valid"),
    ("policies: [no-such-rung]\n", 2, "no policy file or built-in policy named 'no-such-rung'"),
    ("polices: [takeover]\n", 2, ".tfpolicy.yaml:1:1: error: unknown field 'polices'"),
], ids=["valid", "unknown-policy", "unknown-key"])
def test_validate_names_a_configuration_as_the_hook_does(tmp_path: Path, config: str,
                                                          code: int, said: str) -> None:
    """Not a policy missing its kind: the configuration's schema and the policies it
    lists, the answer `validate --hook -- .tfpolicy.yaml` gives."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".tfpolicy.yaml").write_text(config)
    named = tfpolicy("validate", ".tfpolicy.yaml", cwd=tmp_path)
    hooked = tfpolicy("validate", "--hook", "--", ".tfpolicy.yaml", cwd=tmp_path)
    assert (named.returncode, named.stdout, named.stderr) == (
        hooked.returncode, hooked.stdout, hooked.stderr)
    assert named.returncode == code and said in named.stderr
