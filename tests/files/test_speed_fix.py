"""``fix``'s cleanup looks in the folder each file really is in, however it was named."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from tfpolicy.files import output
from tfpolicy.files.in_place import Taken


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


def real_folders(paths: Iterable[str]) -> set[Path]:
    taken = Taken()
    for path in paths:
        taken.add(path, changed=False)
    assert not taken.changed
    return taken.real_folders()


def test_named_paths_are_told_apart_with_one_stat(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.files.listing import manifest_files

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


def test_the_templates_prefilter_lets_every_chart_template_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfpolicy.cli import main
    from tfpolicy.files.runner import _may_be_in_templates
    from tfpolicy.files.scopes import chart_template

    chart = tmp_path / "app" / "chart"
    (chart / "templates" / "sub").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (chart / "templates" / "sub" / "d.yaml").write_text("x: {{ .Values.gpu }}\n")
    monkeypatch.chdir(chart / "templates")
    names = ["sub/d.yaml", "../templates/sub/d.yaml", "sub/../sub/d.yaml",
             str(chart / "templates" / "sub" / "d.yaml")]
    for name in names:
        assert chart_template(name) and _may_be_in_templates(name, os.getcwd()), name
    assert main(["fix", "-p", "takeover", *names]) == 0  # all skipped, none refused
    monkeypatch.chdir(tmp_path)
    # tmp_path is named after this test, so it holds "templates": the filter lets it by.
    assert _may_be_in_templates("app/other.yaml", os.getcwd()) == ("templates" in str(tmp_path))
    assert not _may_be_in_templates("/srv/app/other.yaml", os.getcwd())


def test_renames_in_flight_together_keep_order_and_concurrent_edits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Edits saved while fix runs win, file by file; the rest are replaced, listed in order."""
    from tests.files.test_frontend_fix_sync import GPU
    from tfpolicy.cli import main

    names = [f"w{n:02d}.yaml" for n in range(40)]
    for n, name in enumerate(names):
        (tmp_path / name).write_text(GPU.format(n=n), encoding="utf-8")
    edited = set(names[3::7])
    real_flush = output.flush

    def flush_then_edit(folders: Iterable[Path]) -> None:  # every temp file written, no rename
        real_flush(folders)
        for name in edited:
            (tmp_path / name).write_text("# saved meanwhile\n" + GPU.format(n=99))

    monkeypatch.setattr(output, "flush", flush_then_edit)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "-p", "takeover", *reversed(names)]) == 1
    out, err = capsys.readouterr()
    kept = [name for name in reversed(names) if name not in edited]
    assert out == "".join(f"Fixing {name}\n" for name in kept)
    for name in names:
        text = (tmp_path / name).read_text()
        assert text.startswith("# saved meanwhile\n") == (name in edited)
        assert ('tensor-fusion.ai/enabled: "true"' in text) == (name not in edited)
    assert sorted(line.split(":")[0] for line in err.splitlines()) == sorted(edited)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tfpolicy")]


def test_files_are_read_whole_and_within_the_limit(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import struct

    from tfpolicy.errors import TfpolicyError
    from tfpolicy.files import sources

    for size in (0, 1, 4096, 200_000):
        path = tmp_path / f"f{size}.yaml"
        path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        data, seen = sources.read_seen(str(path))
        assert data == path.read_bytes()
        size_read, _ = struct.unpack("<qq", seen.key[:16])
        assert (size_read, seen.key[16:]) == (size, hashlib.sha256(data).digest())
    with pytest.raises(TfpolicyError, match="cannot read: Is a directory"):
        sources.read_seen(str(tmp_path))
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 4096)
    assert sources.read_seen(str(tmp_path / "f4096.yaml"))[0] == b"".join(
        [bytes(range(256))] * 16)
    with pytest.raises(TfpolicyError, match="larger than"):
        sources.read_seen(str(tmp_path / "f200000.yaml"))
