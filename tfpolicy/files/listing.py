"""Which files a run reads: the paths named, folders walked for their manifests, sorted.

Nothing here reads a manifest's content; ``tfpolicy.files.sources`` does. A config's
``exclude:`` is asked of the config lookup (``tfpolicy.files.excluded``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.excluded import Rules, rules_at
from tfpolicy.files.sources import MANIFEST_SUFFIXES, STDIN
from tfpolicy.policy.project_config import FILENAME


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
    filtered, but for hidden folders, which are not entered at all, nor the files and
    folders the governing config's ``exclude:`` leaves out (``tfpolicy.files.excluded``).
    A linked folder is not entered (rglob's rule), an unreadable one is passed over.

    No Path per entry, nor rglob's directory entry for each (docs/speed.md,
    "Figures behind the code"). Of a folder, only the name and kind of
    its manifests and subfolders are held while it is sorted. The folders being
    walked are a list, not the call stack: however deep a tree is nested, the walk
    never runs out of Python's recursion limit.
    """
    entries, _ = _listing(folder, shown)
    open_folders = [(entries, rules_at(folder))]
    while open_folders:
        listing, rules = open_folders[-1]
        entry = next(listing, None)
        if entry is None:
            open_folders.pop()
            continue
        path, child, name, kind = entry
        if rules is not None and rules.drops(name) is not None:
            continue
        if kind == _FOLDER:
            inner, configured = _listing(path, child)
            open_folders.append((inner, _nested(path, name, rules, configured)))
        elif kind == _FILE or _is_file(path):
            yield child


def _nested(path: str, name: str, rules: Rules | None, configured: bool) -> Rules | None:
    """A subfolder's rules: its own config's, where it holds one, else its parent's."""
    if configured:
        return rules_at(path)
    return rules.below(name) if rules is not None else None


Entries = Iterator[tuple[str, str, str, int]]


def _listing(folder: str, shown: str) -> tuple[Entries, bool]:
    """A folder's manifests and subfolders, sorted by name: (path, shown name, name, kind);
    and whether it holds a project config."""
    configured = False
    try:
        with os.scandir(folder) as listing:
            kept = []
            for entry in listing:
                configured = configured or entry.name == FILENAME
                if (item := _kept(entry)) is not None:
                    kept.append(item)
    except PermissionError:
        return iter(()), False
    except OSError as exc:  # a name longer than the system takes, a folder gone meanwhile
        raise TfpolicyError(f"cannot list: {exc.strerror}", file=shown or ".") from None
    return ((os.path.join(folder, name), os.path.join(shown, name) if shown else name, name,
             kind) for name, kind in sorted(kept)), configured


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
