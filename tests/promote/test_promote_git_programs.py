"""``promote`` starts git only: the programs a repository's git configuration names (a
file-system monitor, commit hooks) do not run unless ``--run-hooks`` asks for the hooks.

A real repository whose ``.git/config`` names a hostile ``core.fsmonitor`` and a
``core.hooksPath`` (or hooks in ``.git/hooks``): each program appends its name to a
file outside the repository when git starts it.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.promote.promote_repo import Repo, at_hour, capped

ADVANCED = 0
HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")


def _program(path: Path, marks: Path, name: str) -> None:
    path.write_text(f"#!/bin/sh\necho {name} >> '{marks}'\nexit 0\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _hostile(repo: Repo, tmp_path: Path, where: str) -> Path:
    marks = tmp_path / "ran.txt"
    _program(tmp_path / "fsmonitor.sh", marks, "fsmonitor")
    repo.git("config", "core.fsmonitor", str(tmp_path / "fsmonitor.sh"))
    hooks = repo.path / ".git" / "hooks"
    if where == "hooksPath":
        hooks = tmp_path / "hooks"
        hooks.mkdir()
        repo.git("config", "core.hooksPath", str(hooks))
    for name in HOOKS:
        _program(hooks / name, marks, name)
    marks.unlink(missing_ok=True)
    return marks


def _ran(marks: Path) -> list[str]:
    return sorted(set(marks.read_text().split())) if marks.exists() else []


@pytest.mark.parametrize("where", ["hooksPath", ".git/hooks"])
def test_no_program_of_the_repository_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           where: str) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    marks = _hostile(repo, tmp_path, where)
    head = repo.head()
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    assert repo.head() != head and "takeover-25" in repo.rung  # committed all the same
    assert _ran(marks) == []


def test_run_hooks_runs_the_hooks_and_still_no_monitor(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    marks = _hostile(repo, tmp_path, "hooksPath")
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", "--run-hooks", hour=9) == ADVANCED
    assert _ran(marks) == sorted(HOOKS)


def test_run_hooks_needs_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--patch", str(tmp_path / "p.diff"),
                        "--run-hooks", hour=9) == 2
    assert "--run-hooks goes with --commit" in capsys.readouterr().err
