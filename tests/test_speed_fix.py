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


def test_named_paths_are_told_apart_with_one_stat(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.sources import manifest_files

    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "sub" / "m.yaml").write_text("a: 1\n")
    (tmp_path / "d" / "notes.txt").write_text("x\n")
    (tmp_path / "f.txt").write_text("named files are read whatever their suffix\n")
    os.symlink(tmp_path / "missing", tmp_path / "dangling.yaml")
    monkeypatch.chdir(tmp_path)
    assert list(manifest_files(("d", "f.txt", "-"))) == [str(Path("d/sub/m.yaml")), "f.txt", "-"]
    for absent in ("nope.yaml", "dangling.yaml", "f.txt/inside.yaml", "a\0b"):
        with pytest.raises(TfpolicyError, match="no such file or directory"):
            list(manifest_files((absent,)))
