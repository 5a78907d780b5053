"""``plan -o FILE`` where FILE is a symlink: refused, saying what the user can do instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_symlink_as_report_is_refused_with_a_remedy_for_plan(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    (tmp_path / "plan.txt").symlink_to(target)
    examples = ROOT / "examples"
    done = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "takeover", "--inventory",
         str(examples / "inventory.yaml"), "-o", "plan.txt", str(examples / "manifests")],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"plan.txt: error: is a symlink to {target}: not overwriting what it points at "
        "(nothing was written; remove the link, or choose another -o FILE)\n")
    assert target.read_text() == "keep me\n" and (tmp_path / "plan.txt").is_symlink()
