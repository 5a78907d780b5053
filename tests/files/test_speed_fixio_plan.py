"""``fix``'s per-file shortcuts give what the plain rules give.

The planner resolves each folder once and the file with one ``lstat``;
the plain rule resolves the whole path of every file. The temp files are
made without ``tempfile``; their names must still be the ones the cleanup of
a killed run recognises.
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.files import output, targets
from tfpolicy.files.sources import Seen, read_seen, unchanged


def plan_writes(items: list[tuple[str, bytes, Seen]], cwd: Path) -> list[targets.Target]:
    planner = targets.Planner(cwd)
    return [t for t in (planner.plan(*item) for item in items) if t is not None]


def _plain(shown: str) -> Path:
    """Where the bytes of ``shown`` go, by the rule the README states."""
    return Path(os.path.normpath(Path(shown).absolute())).resolve()


def _tree(tmp_path: Path) -> list[str]:
    """Files named every way a hook or a user may name them, links in folders and files."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    for name in ("a/x.yaml", "a/deep/y.yaml", "b/target.yaml", "b/other.yaml", "top.yaml"):
        (tmp_path / name).write_text(f"{name}: 1\n")
    os.symlink(tmp_path / "b" / "target.yaml", tmp_path / "a" / "link.yaml")
    os.symlink("../b/other.yaml", tmp_path / "a" / "relative-link.yaml")
    os.symlink(tmp_path / "a" / "deep", tmp_path / "hop")
    os.symlink(tmp_path / "b", tmp_path / "bee")
    return ["a/x.yaml", "./a/x.yaml", "a//deep/y.yaml", "a/link.yaml", "a/relative-link.yaml",
            "hop/y.yaml", "a/deep/../x.yaml", "bee/target.yaml",
            "bee/../top.yaml", "top.yaml", str(tmp_path / "a" / "x.yaml"),
            str(tmp_path / "hop" / "y.yaml")]


def test_each_target_is_where_the_plain_rule_puts_it(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    names = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for shown in names:  # one at a time: a file named twice is planned once
        seen = read_seen(shown)[1]
        [target] = plan_writes([(shown, b"new\n", seen)], Path.cwd())
        assert target.real == _plain(shown), shown
        assert target.shown == shown and target.data == b"new\n"
        assert (target.info.st_ino, target.info.st_mode) == (
            os.stat(shown).st_ino, os.stat(shown).st_mode), shown
    planned = plan_writes([(n, b"", read_seen(n)[1]) for n in names], Path.cwd())
    assert [t.real for t in planned] == list(dict.fromkeys(_plain(n) for n in names))


def test_a_link_out_of_the_repository_is_refused_however_it_is_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    outside.mkdir()
    (outside / "o.yaml").write_text("o: 1\n")
    (repo / "mine.yaml").write_text("m: 1\n")
    os.symlink(outside / "o.yaml", repo / "file-link.yaml")
    os.symlink(outside, repo / "folder-link")
    monkeypatch.chdir(repo)
    for shown in ("file-link.yaml", "folder-link/o.yaml"):
        items = [("mine.yaml", b"", read_seen("mine.yaml")[1]), (shown, b"", read_seen(shown)[1])]
        with pytest.raises(TfpolicyError, match="outside the repository") as caught:
            plan_writes(items, Path.cwd())
        assert caught.value.file == shown


def test_a_file_gone_or_hard_linked_since_it_was_read_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("gone.yaml", "linked.yaml"):
        Path(name).write_text("x: 1\n")
    seen = {name: read_seen(name)[1] for name in ("gone.yaml", "linked.yaml")}
    os.unlink("gone.yaml")
    os.link("linked.yaml", "second-name.yaml")
    with pytest.raises(TfpolicyError, match="cannot write: No such file"):
        plan_writes([("gone.yaml", b"", seen["gone.yaml"])], tmp_path)
    with pytest.raises(TfpolicyError, match="has 2 hard links"):
        plan_writes([("linked.yaml", b"", seen["linked.yaml"])], tmp_path)


def test_temp_files_carry_the_name_the_cleanup_knows(tmp_path: Path) -> None:
    target = tmp_path / ("n" * 300)[:200]
    target.write_bytes(b"old\n")
    os.chmod(target, 0o640)
    info = os.stat(target)
    fd, temp = output._create(target, f".%s.{os.getpid()}." % target.name[:output._NAME_ROOM])
    output._fill(fd, b"new\n" * 100_000, info)
    name = os.path.basename(temp)
    assert output._TEMP.match(name) and name.startswith("." + "n" * 100 + f".{os.getpid()}.")
    assert Path(temp).read_bytes() == b"new\n" * 100_000
    assert (os.stat(temp).st_mode & 0o7777, os.stat(temp).st_uid) == (0o640, info.st_uid)
    os.unlink(temp)


def test_the_check_before_each_rename_sees_every_change(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a: 1\n")
    data, seen = read_seen(str(path))
    packed = struct.pack("<qq", len(data), os.stat(path).st_mtime_ns)
    assert seen == Seen(packed + hashlib.sha256(data).digest())
    assert len(seen.key) == 48
    assert unchanged(str(path), seen)
    stamp = os.stat(path).st_mtime_ns
    path.write_bytes(b"a: 2\n")  # same size, same mtime: only the bytes tell
    os.utime(path, ns=(stamp, stamp))
    assert not unchanged(str(path), seen)
    path.write_bytes(b"a: 1\n")
    os.utime(path, ns=(stamp, stamp))
    assert unchanged(str(path), seen)
    os.utime(path, ns=(stamp + 1, stamp + 1))
    assert not unchanged(str(path), seen)
    path.unlink()
    assert not unchanged(str(path), seen)


def test_a_temp_name_already_taken_is_skipped_and_the_file_is_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "t.yaml"
    target.write_text("x: 1\n")
    names = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(output._NAMES, "choices", lambda letters, k: list(next(names)))
    made = []
    for _ in range(2):
        fd, temp = output._create(target, ".t.yaml.1.")
        os.close(fd)
        made.append(os.path.basename(temp))
        assert os.stat(temp).st_mode & 0o777 == 0o600  # until _fill gives it the file's mode
    assert made == [".t.yaml.1.aaaaaaaa.tfpolicy", ".t.yaml.1.bbbbbbbb.tfpolicy"]
