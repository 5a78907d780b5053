"""Which files a run reads: the paths named, folders walked for their manifests, sorted.

Nothing here reads a file's content; ``tfpolicy.files.sources`` does.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import MANIFEST_SUFFIXES, STDIN


def named(paths: tuple[str, ...], *, stdin: bool = False) -> tuple[str, ...]:
    """The files and folders to work on: only those named, never an implicit ``.`` or stdin
    (docs/commands.md: no paths is an error)."""
    if not paths:
        hint = "`.` for this folder, `-` for stdin" if stdin else "`.` for this folder"
        raise TfpolicyError(f"no files named: give files or folders ({hint})")
    return paths


def manifest_files(paths: tuple[str, ...]) -> Iterator[str]:
    """Files to read, in order: folders walked sorted for YAML/JSON, ``-`` for stdin. No
    path at all is an error, raised when the first file is asked for: a command reading
    manifests (``plan``, ``admission``, ``verify``) never runs over an empty stream."""
    for path in named(paths, stdin=True):
        kind = STDIN if path == STDIN else _kind(path)
        if kind != "dir":
            if kind is None:
                raise TfpolicyError("no such file or directory", file=path)
            yield path
            continue
        root = str(Path(path))  # as Path gives it: "./a/" is "a", "." names its files bare
        yield from _walk(root, "" if root == "." else root)


def _walk(folder: str, shown: str) -> Iterator[str]:
    """The manifest files under ``folder`` (named ``shown``, "" for "."), each folder's
    entries by name, depth first: what ``sorted(Path(folder).rglob("*"))`` lists, then
    filtered, but for hidden folders, which are not entered at all. A linked folder is
    not entered (rglob's rule), an unreadable one is passed over.

    No Path per entry, nor rglob's directory entry for each (docs/speed.md,
    "Figures behind the code"). Of a folder, only the name and kind of
    its manifests and subfolders are held while it is sorted. The folders being
    walked are a list, not the call stack: however deep a tree is nested, the walk
    never runs out of Python's recursion limit.
    """
    open_folders = [_listing(folder, shown)]
    while open_folders:
        entry = next(open_folders[-1], None)
        if entry is None:
            open_folders.pop()
            continue
        path, child, kind = entry
        if kind == _FOLDER:
            open_folders.append(_listing(path, child))
        elif kind == _FILE or _is_file(path):
            yield child


def _listing(folder: str, shown: str) -> Iterator[tuple[str, str, int]]:
    """A folder's manifests and subfolders, sorted by name: (path, shown name, kind)."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(kept for entry in listing if (kept := _kept(entry)))
    except PermissionError:
        return iter(())
    except OSError as exc:  # a name longer than the system takes, a folder gone meanwhile
        raise TfpolicyError(f"cannot list: {exc.strerror}", file=shown or ".") from None
    return ((os.path.join(folder, name), os.path.join(shown, name) if shown else name, kind)
            for name, kind in entries)


_FOLDER, _FILE, _LINK = 0, 1, 2  # a link or anything else: stat'ed when its turn comes


def _kept(entry: os.DirEntry[str]) -> tuple[str, int] | None:
    """A subfolder or a manifest, with its kind (from the directory entry, no stat where
    the file system gives its type); None for what is hidden or not a manifest."""
    name = entry.name
    if name.startswith("."):
        return None
    if entry.is_dir(follow_symlinks=False):
        return name, _FOLDER
    if os.path.splitext(name)[1] not in MANIFEST_SUFFIXES:
        return None
    return name, _FILE if entry.is_file(follow_symlinks=False) else _LINK


def _is_file(path: str) -> bool:
    """``Path.is_file``: a link to a regular file is one; a dangling link is not."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno in _ABSENT:
            return False
        raise
    except ValueError:
        return False


# What Path.exists() and Path.is_dir() take as "not there" rather than an error.
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _kind(path: str) -> str | None:
    """"dir", "file" (anything else that exists) or None: one stat, where ``Path.is_dir``
    then ``Path.exists`` made two, and two path objects, for each of thousands of files."""
    try:
        mode = os.stat(path or ".").st_mode  # Path("") is "."
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise
    except ValueError:  # a NUL byte in the name
        return None
    return "dir" if stat.S_ISDIR(mode) else "file"
