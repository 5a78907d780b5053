"""Finding and reading the project config ``.tfpolicy.yaml`` (docs/design.md, "Policies
and the project config").

Looked up from the working directory upwards. The walk stops at a
repository root (a folder with ``.git``), at a ceiling the host knows (the
root of the repository ArgoCD unpacked), at the user's home, and at a
filesystem boundary: without those stops a folder outside any repository
would take a ``.tfpolicy.yaml`` from anywhere above it, up to ``/``.

The file itself, and the policy paths in it, must stay inside its
repository (the folder with ``.git`` above it, else the file's own folder),
symlinks resolved: a config is data a repository ships, and must not make
tfpolicy read the files of whoever runs it. What the text says is
``tfpolicy.policy.project_config``'s to read.
"""

from __future__ import annotations

from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import confine_refs, inside
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
    while True:
        candidate = folder / FILENAME
        if candidate.is_file():
            return Lookup(load_config(candidate, _root(folder, top, home)), folder, "found")
        reason = _stop(folder, top, home)
        if reason:
            return Lookup(None, folder, reason)
        folder = folder.parent


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
        data = path.resolve().read_bytes()
    except OSError as exc:
        raise TfpolicyError(f"cannot read: {exc.strerror}", file=str(path)) from None
    config = parse_config(data, path)
    confine_refs(config.policies, path.parent, root or path.parent, str(path))
    for ref in config.operator:  # always a path, never a built-in name
        if not inside(path.parent / ref, top):
            raise TfpolicyError(f"operatorConfig path {ref!r} leaves the repository: operator "
                                "config files named here must be inside it", file=str(path))
    return config
