"""Which paths a config's ``exclude:`` globs leave out (docs/hosts.md, "Excluding files").

A glob is matched, as Python's ``fnmatch.fnmatchcase`` matches (CPython
Lib/fnmatch.py, ``fnmatchcase``: ``*`` and ``?`` also match ``/``, ``[...]``
a set, case-sensitive), against a path relative to the config's folder,
``/``-separated, and against each folder above it: ``vendor`` leaves out the
folder and all below it, ``*.generated.yaml`` such files in any folder. A
leading ``./`` and a trailing ``/`` are not part of the match. The schema
refuses what could never match a path under the folder: an empty glob, an
absolute one, one with a ``..`` part.
"""

from __future__ import annotations

from fnmatch import fnmatchcase


def normalised(globs: tuple[str, ...]) -> tuple[str, ...]:
    """The globs as they are matched: no leading ``./``, no trailing ``/``."""
    return tuple(_bare(glob) for glob in globs)


def _bare(glob: str) -> str:
    while glob.startswith("./"):
        glob = glob[2:]
    return glob.rstrip("/") or glob


def matching(globs: tuple[str, ...], relative: str) -> str | None:
    """The first of ``globs`` (normalised) that leaves out ``relative`` (a ``/``-separated
    path under the config's folder) or a folder above it; None when none does."""
    if not globs:
        return None
    parts = relative.split("/")
    for end in range(len(parts), 0, -1):
        found = matching_one(globs, "/".join(parts[:end]))
        if found is not None:
            return found
    return None


def matching_one(globs: tuple[str, ...], relative: str) -> str | None:
    """The first of ``globs`` that matches ``relative`` itself (its folders not asked)."""
    for glob in globs:
        if fnmatchcase(relative, glob):
            return glob
    return None
