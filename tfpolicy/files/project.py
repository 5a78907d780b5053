"""Finding and reading the project config ``.tfpolicy.yaml`` (docs/design.md, "Policies
and the project config").

Looked up from the working directory upwards. The walk stops at a
repository root (a folder with ``.git``), at a ceiling the host knows (the
root of the repository ArgoCD unpacked), at the user's home, and at a
filesystem boundary: without those stops a folder outside any repository
would take a ``.tfpolicy.yaml`` from anywhere above it, up to ``/``.

Nor does it look in, or climb past, a folder where another user could have put
the file: one every user can write (``/tmp``), or, above the folder it started
in, one owned by someone but the user, root or the starting folder's owner
(the pattern git closed for its own configuration after CVE-2022-24765). A
folder every user can write that has the sticky bit is still read when its
``.tfpolicy.yaml`` is a file of the user's or of the folder's owner, whom the
sticky bit leaves the only ones able to replace it.

The file itself, and the policy paths in it, must stay inside its
repository (the folder with ``.git`` above it, else the file's own folder),
symlinks resolved: a config is data a repository ships, and must not make
tfpolicy read the files of whoever runs it. What the text says is
``tfpolicy.policy.project_config``'s to read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import confine_refs, inside, read_bytes
from tfpolicy.policy.project_config import (
    FILENAME,
    Configuration,
    Given,
    ProjectConfig,
    parse_config,
    resolve_config,
)
from tfpolicy.records import Record


class Lookup(Record):
    """Where the walk found a config (or none), and why it stopped where it did."""

    config: ProjectConfig | None
    stopped: Path
    reason: str

    def explain(self) -> str:
        if self.config is not None:
            return f"using {self.config.path}"
        return f"no {FILENAME} found; the lookup stopped at {self.stopped} ({self.reason})"


def resolve_here(given: Given) -> Configuration:
    """What a run in the working directory uses: ``given`` (the flags), then the
    ``.tfpolicy.yaml`` that governs the working directory, then the defaults."""
    return resolve_config(lookup(Path.cwd()).config, given)


def find_config(start: Path, ceiling: Path | None = None) -> ProjectConfig | None:
    """The nearest ``.tfpolicy.yaml`` at or above ``start``, within the stops above."""
    return lookup(start, ceiling).config


def lookup(start: Path, ceiling: Path | None = None) -> Lookup:
    home = _home()
    top = ceiling.resolve() if ceiling is not None else None
    folder = start.resolve()
    owners = _owners(folder)
    while True:
        candidate = folder / FILENAME
        planted = _planted(folder, candidate, owners)
        if planted:
            return Lookup(None, folder, planted)
        if candidate.is_file():
            return Lookup(load_config(candidate, _root(folder, top, home)), folder, "found")
        reason = _stop(folder, top, home)
        if reason:
            return Lookup(None, folder, reason)
        folder = folder.parent


def _owners(start: Path) -> frozenset[int]:
    """Whose folders the lookup reads: the user's, root's, and those of whoever owns the
    folder it starts in, which the user chose (a CI job's checkout is often another uid's)."""
    uid = os.geteuid()
    try:
        return frozenset({uid, 0, start.stat().st_uid})
    except OSError:
        return frozenset({uid, 0})


def _planted(folder: Path, candidate: Path, owners: frozenset[int]) -> str:
    """Why a ``.tfpolicy.yaml`` in ``folder`` could be another user's doing, and the walk
    must stop there without reading it (empty: it could not)."""
    try:
        info = folder.stat()
    except OSError:
        return ""  # gone or unreadable: the walk's other checks say so
    try:
        config: os.stat_result | None = candidate.lstat()
    except OSError:
        config = None
    return distrusted(info, config, owners)


def distrusted(folder: os.stat_result, config: os.stat_result | None,
               owners: frozenset[int]) -> str:
    """Why a folder (its ``stat``; ``config``: its ``.tfpolicy.yaml``'s ``lstat``, None
    when it has none) could hold a config another user put there: it is writable by every
    user (with the sticky bit, unless the config is a file of one of ``owners`` or of the
    folder's owner, the only users then able to replace it), or owned by none of
    ``owners``. Empty when it could not."""
    if folder.st_mode & stat.S_IWOTH:
        if not folder.st_mode & stat.S_ISVTX:
            return "a folder every user can write, without the sticky bit: not read, " \
                   "nor anything above it"
        if config is None:
            return "a folder every user can write: nothing above it is read"
        if not stat.S_ISREG(config.st_mode) or config.st_uid not in owners | {folder.st_uid}:
            return (f"a folder every user can write, and its {FILENAME} is not a file of "
                    "yours nor of the folder's owner: not read, nor anything above it")
        return ""
    if folder.st_uid not in owners:
        return (f"a folder owned by another user (uid {folder.st_uid}): not read, nor "
                "anything above it")
    return ""


def _stop(folder: Path, ceiling: Path | None, home: Path | None) -> str:
    """Why the walk must not go above ``folder`` (empty: it may)."""
    if (folder / ".git").exists():
        return "a repository root"
    if folder == ceiling:
        return "the root of the repository being rendered"
    if folder == home:
        return "the user's home"
    if folder.parent == folder:
        return "the filesystem root"
    if _device(folder) != _device(folder.parent):
        return "a filesystem boundary"
    return ""


def _root(folder: Path, ceiling: Path | None, home: Path | None) -> Path:
    """The repository a config found in ``folder`` belongs to: policy paths stay inside it."""
    current = folder
    while True:
        if (current / ".git").exists() or current == ceiling:
            return current
        if _stop(current, ceiling, home):
            return folder
        current = current.parent


def _device(folder: Path) -> int:
    try:
        return folder.stat().st_dev
    except OSError:
        return -1


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (KeyError, RuntimeError):  # no HOME and no passwd entry
        return None


def load_config(path: Path, root: Path | None = None) -> ProjectConfig:
    """The config in ``path``; it and its policy paths must resolve inside ``root``.

    The config itself too: a ``.tfpolicy.yaml`` that is a symlink to a file
    outside the repository would otherwise be read, and its content, a
    runner's file, quoted in the error that it is no config.
    """
    top = (root or path.parent).resolve()
    if not inside(path, top):
        raise TfpolicyError(f"a symlink to a file outside the repository ({top}): a project "
                            "config is read only inside it", file=str(path))
    try:
        data = read_bytes(str(path.resolve()))  # a regular file, never a FIFO's wait
    except TfpolicyError as exc:
        raise TfpolicyError(exc.message, file=str(path)) from None
    config = parse_config(data, path)
    confine_refs(config.policies, path.parent, root or path.parent, str(path))
    for ref in config.operator:  # always a path, never a built-in name
        if not inside(path.parent / ref, top):
            raise TfpolicyError(f"operatorConfig path {ref!r} leaves the repository: operator "
                                "config files named here must be inside it", file=str(path))
    return config
