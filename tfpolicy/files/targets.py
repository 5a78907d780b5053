"""Where ``fix`` writes each new text, and whether it may: the plan checked before any write.

A target is the file itself, or a symlink's final target inside the
repository; a link leading out of it, a file with several hard links, and a
file or folder fix cannot write to are refused (exit 2), before anything is
written (``tfpolicy.files.output`` holds the whole contract).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import Seen
from tfpolicy.records import Record


class Target(Record):
    shown: str  # the path as the user gave it
    real: Path  # where the bytes go: the file itself, or a symlink's final target
    data: bytes
    seen: Seen
    info: os.stat_result  # the file as planned: its mode and owner go to the new file


class _Folder(Record):
    """What every file named in one folder shares: looked up once per folder, not per file."""

    named: Path  # the folder as named, absolute and normalised
    real: Path  # every link in it resolved
    writable: bool


class Planner:
    """Where each new text goes; a target fix must not write raises (exit 2).

    A file named twice (itself and a link to it) is planned once, under its first name.
    """

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._folders: dict[str, _Folder] = {}
        self._reals: set[str] = set()  # strings: a Path per file costs more

    def plan(self, shown: str, data: bytes, seen: Seen) -> Target | None:
        """The target of one file; None when it was planned before under another name."""
        target = _target(shown, data, seen, self._cwd, self._folders)
        real = str(target.real)
        if real in self._reals:
            return None
        self._reals.add(real)
        return target


def _target(shown: str, data: bytes, seen: Seen, cwd: Path,
            folders: dict[str, _Folder]) -> Target:
    """The plain rule: ``real`` is ``normpath(absolute(shown)).resolve()``.

    Taken in two steps, the folder resolved once for all its files: when the
    file in the resolved folder is not a symlink (one ``lstat``), resolving the
    whole path ends there too. A symlink, or a name ending in ``..``, takes
    the plain rule itself.
    """
    head, name = os.path.split(shown)
    folder = folders.get(head)
    if folder is None:
        folder = folders[head] = _folder(head)
    info = None
    with contextlib.suppress(OSError):  # gone: the plain rule says why
        info = os.lstat(folder.real / name) if name not in ("", ".", "..") else None
    if info is None or stat.S_ISLNK(info.st_mode):
        named = Path(os.path.normpath(Path(shown).absolute()))
        real, info, writable = named.resolve(), None, None
    else:
        named, real, writable = folder.named / name, folder.real / name, folder.writable
    if real != named and not real.is_relative_to(_repository(named, cwd)):
        raise TfpolicyError(f"a symlink to {real}, outside the repository: fix writes only "
                            "inside it (nothing was written)", file=shown)
    return _checked(Target(shown, real, data, seen, info or _stat(real, shown)), writable)


def _folder(head: str) -> _Folder:
    named = Path(os.path.normpath(Path(head or ".").absolute()))
    real = named.resolve()
    return _Folder(named, real, os.access(real, os.W_OK | os.X_OK))


def _stat(real: Path, shown: str) -> os.stat_result:
    try:
        return real.stat()
    except OSError as exc:  # removed (or its folder renamed) since it was read
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=shown) from None


def _checked(target: Target, folder_writable: bool | None) -> Target:
    """Refuse a hard-linked or read-only file, or one in a folder fix cannot write to."""
    nlink = target.info.st_nlink
    if nlink > 1:
        raise TfpolicyError(f"has {nlink} hard links: replacing it would split them "
                            "(nothing was written; make it a plain file or a symlink)",
                            file=target.shown)
    if folder_writable is None:
        folder_writable = os.access(target.real.parent, os.W_OK | os.X_OK)
    if not folder_writable or not os.access(target.real, os.W_OK):
        raise TfpolicyError("not writable (nothing was written)", file=target.shown)
    return target


def _repository(named: Path, cwd: Path) -> Path:
    """The repository of a file named through a link: the nearest folder with ``.git``,
    else the working directory when the file is under it, else the file's own folder."""
    for folder in named.parents:
        if (folder / ".git").exists():
            return folder.resolve()
    return (cwd if named.is_relative_to(cwd) else named.parent).resolve()
