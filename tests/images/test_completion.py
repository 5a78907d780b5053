"""Click's shell completion, as docs/install.md tells people to enable it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TFPOLICY = Path(sys.executable).parent / "tfpolicy"


def _complete(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY], env={**os.environ, **env}, text=True,
                          capture_output=True, check=False, timeout=60)


def test_bash_source_and_completion_of_commands_and_options() -> None:
    source = _complete(_TFPOLICY_COMPLETE="bash_source")
    assert source.returncode == 0 and "complete -o nosort -F _tfpolicy_completion tfpolicy" \
        in source.stdout
    done = _complete(_TFPOLICY_COMPLETE="bash_complete", COMP_WORDS="tfpolicy ap",
                     COMP_CWORD="1")
    assert done.returncode == 0 and done.stdout.split() == ["plain,apply"]
    done = _complete(_TFPOLICY_COMPLETE="bash_complete",
                     COMP_WORDS="tfpolicy check --for", COMP_CWORD="2")
    assert done.stdout.split() == ["plain,--format"]
