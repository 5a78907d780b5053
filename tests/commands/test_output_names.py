"""-o is a folder for apply and admission (--output-dir) and a file for plan and verify
(--output); the folders' old long name --output is still read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
MANIFEST = str(ROOT / "examples" / "manifests" / "llm-server.yaml")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)


@pytest.mark.parametrize("command", ["apply", "admission"])
def test_a_folder_is_output_dir_and_its_old_name_still_works(tmp_path: Path,
                                                             command: str) -> None:
    shown = run(command, "--help", cwd=tmp_path).stdout
    assert "-o, --output-dir DIR" in shown and "--output " not in shown
    new = run(command, "-p", "takeover", "--output-dir", "new", MANIFEST, cwd=tmp_path)
    old = run(command, "-p", "takeover", "--output", "old", MANIFEST, cwd=tmp_path)
    assert new.returncode == old.returncode and new.returncode in (0, 1), new.stderr
    written = {p.relative_to(tmp_path / "new") for p in (tmp_path / "new").rglob("*")}
    assert written and written == {p.relative_to(tmp_path / "old")
                                   for p in (tmp_path / "old").rglob("*")}


@pytest.mark.parametrize("command", ["plan", "verify"])
def test_a_report_file_is_output(tmp_path: Path, command: str) -> None:
    assert "-o, --output FILE" in run(command, "--help", cwd=tmp_path).stdout
