"""Each command's --help ends with examples, and shell completion answers as documented."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.cli import COMMANDS

TFPOLICY = str(Path(sys.executable).parent / "tfpolicy")
GROUPS = {"kustomize", "argocd"}  # their subcommands carry the detail


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - GROUPS))
def test_help_shows_examples(name: str) -> None:
    done = subprocess.run([TFPOLICY, name, "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    examples = done.stdout.split("Examples:\n", 1)[1].splitlines()
    assert examples and all(line.strip().split()[0] in ("tfpolicy", "kpt", "helm")
                            for line in examples if line.strip())


def test_bash_completion_source() -> None:
    env = dict(os.environ, _TFPOLICY_COMPLETE="bash_source")
    done = subprocess.run([TFPOLICY], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "complete -o nosort -F" in done.stdout
