"""fix takes --fail-on as check and apply do: a file with nothing to rewrite and a warning
exits 0 by default and 1 under --fail-on warning (docs/exit-codes.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly: {deviceClassName: gpu.nvidia.com}
"""


@pytest.mark.parametrize("command", ["fix", "check"])
@pytest.mark.parametrize(("extra", "code"), [((), 0), (("--fail-on", "warning"), 1)])
def test_fail_on_decides_the_exit_code(tmp_path: Path, command: str, extra: tuple[str, ...],
                                       code: int) -> None:
    (tmp_path / "claim.yaml").write_text(CLAIM)
    done = subprocess.run([TFPOLICY, command, "-p", "takeover", *extra, "claim.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == code, done.stderr
    assert "gpu-dra-claim" in done.stderr or "GPU" in done.stderr
    assert (tmp_path / "claim.yaml").read_text() == CLAIM
