"""A folder without manifests is said to be one: exit 0 means nothing to do, never that
manifests were read and found fine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60, check=False)


@pytest.mark.parametrize("command", [["check"], ["fix"], ["apply"], ["apply", "-o", "out"]],
                         ids=["check", "fix", "apply", "apply-to-a-folder"])
def test_an_empty_folder_or_one_without_manifests_says_so(tmp_path: Path,
                                                         command: list[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.txt").write_text("nothing for kubectl here\n")
    done = tfpolicy(*command, "-p", "takeover", "empty", "notes", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == ("tfpolicy: no manifest files (.yaml, .yml, .json) in empty, notes: "
                           "nothing to do\n")


def test_a_folder_with_a_manifest_says_nothing_of_the_kind(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    done = tfpolicy("check", "-p", "takeover", ".", cwd=tmp_path)
    assert done.returncode == 0 and "no manifest files" not in done.stderr
