"""``fix``'s cleanup looks in the folder each file really is in, however it was named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfpolicy.commands.fix import real_folders


def test_real_folders_are_the_resolved_parents(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.yaml").write_text("x: 1\n")
    (tmp_path / "b" / "target.yaml").write_text("y: 1\n")
    os.symlink(tmp_path / "b" / "target.yaml", tmp_path / "a" / "link.yaml")
    os.symlink(tmp_path / "a" / "deep", tmp_path / "hop")  # "hop/.." is tmp_path/a, not tmp_path
    monkeypatch.chdir(tmp_path)
    paths = ["a/x.yaml", "a/link.yaml", "hop/../x.yaml", "a/deep/../x.yaml",
             str(tmp_path / "a" / "x.yaml"), "a/gone.yaml"]
    assert real_folders(paths) == {Path(p).resolve().parent for p in paths}
    assert real_folders(paths) == {(tmp_path / "a").resolve(), (tmp_path / "b").resolve()}
