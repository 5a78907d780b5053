"""Real files through ``fix`` and ``apply``: comments stay where they were, the last line
break stays as it was, rollback gives the bytes back (tests/comments/README.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.comments.keep import FILES, GPU_LINE, check_kept, read

TFPOLICY = str(Path(sys.executable).parent / "tfpolicy")
# Each stage writes new keys; rightsize and autoscale also take the GPU resources out.
REMOVES = {"takeover-25": None, "takeover": None, "rightsize-example": GPU_LINE,
           "autoscale": GPU_LINE}


def _tfpolicy(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=120, check=False)


def _fixed(tmp: Path, *policies: str) -> dict[str, str]:
    """Every file copied to ``tmp`` and fixed with each policy in turn."""
    tmp.mkdir(parents=True, exist_ok=True)
    names = [f.name for f in FILES]
    for f in FILES:
        shutil.copyfile(f, tmp / f.name)
    for policy in policies:
        done = _tfpolicy("fix", "-p", policy, *names, cwd=tmp)
        assert done.returncode in (0, 1) and "error" not in done.stderr, done.stderr
    return {name: read(tmp / name) for name in names}


@pytest.mark.parametrize("policy", sorted(REMOVES))
def test_fix_adds_the_planned_keys_and_moves_no_comment(tmp_path: Path, policy: str) -> None:
    fixed = _fixed(tmp_path, policy)
    for f in FILES:
        added = check_kept(read(f), fixed[f.name], removable=REMOVES[policy])
        assert added, f.name  # every file holds a GPU workload the stage migrates


@pytest.mark.parametrize("policy", sorted(REMOVES))
def test_apply_writes_what_fix_writes(tmp_path: Path, policy: str) -> None:
    fixed = _fixed(tmp_path / "fixed", policy)
    done = _tfpolicy("apply", "-p", policy, "-o", str(tmp_path / "out"),
                     *[str(f) for f in FILES], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for f in FILES:
        assert read(tmp_path / "out" / f.name) == fixed[f.name], f.name


@pytest.mark.parametrize("policy", sorted(REMOVES))
def test_rollback_after_fix_gives_every_byte_back(tmp_path: Path, policy: str) -> None:
    back = _fixed(tmp_path, policy, "rollback")
    for f in FILES:
        assert back[f.name] == read(f), f.name


@pytest.mark.parametrize("policy", ["rightsize-example", "takeover-25"])
def test_apply_on_stdin_round_trip_keeps_the_missing_last_line_break(
        tmp_path: Path, policy: str) -> None:
    """KServe's sample ends on a GPU resource line without a line break; so does its round trip."""
    original = read(next(f for f in FILES if f.name == "kserve-isvc-hf-llama2.yaml"))
    assert not original.endswith("\n")
    staged = _tfpolicy("apply", "-p", policy, "-", cwd=tmp_path, stdin=original)
    assert staged.returncode == 0, staged.stderr
    assert not staged.stdout.endswith("\n")
    check_kept(original, staged.stdout, removable=REMOVES[policy])
    back = _tfpolicy("apply", "-p", "rollback", "-", cwd=tmp_path, stdin=staged.stdout)
    assert back.returncode == 0, back.stderr
    assert back.stdout == original


def test_a_file_that_ended_with_a_line_break_keeps_exactly_one(tmp_path: Path) -> None:
    fixed = _fixed(tmp_path, "rightsize-example")
    for f in FILES:
        if read(f).endswith("\n"):
            assert fixed[f.name].endswith("\n") and not fixed[f.name].endswith("\n\n"), f.name
