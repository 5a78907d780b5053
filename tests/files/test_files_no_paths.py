"""No path is an error for every command that reads manifests (docs/commands.md): ``plan``
and ``admission`` given none ran over an empty (or an unasked-for stdin) stream and said
all was well, exit 0. The refusal is the walk's own, so no command can forget it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
INVENTORY = ROOT / "examples" / "inventory.yaml"
COMMANDS = {
    "plan": ["plan", "-p", "takeover", "--inventory", str(INVENTORY)],
    "admission": ["admission"],
    "check": ["check", "-p", "takeover"],
    "apply": ["apply", "-p", "takeover"],
}
HINTS = {"check": "(`.` for this folder)"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_path_is_refused_with_one_line(tmp_path: Path, command: str) -> None:
    done = subprocess.run([TFPOLICY, *COMMANDS[command]], cwd=tmp_path, capture_output=True,
                          text=True, input=(ROOT / "examples" / "vllm.yaml").read_text(),
                          timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    hint = HINTS.get(command, "(`.` for this folder, `-` for stdin)")
    assert done.stderr == f"tfpolicy: error: no files named: give files or folders {hint}\n"
    assert not list(tmp_path.iterdir())
