"""Project config ``.tfpolicy.yaml``: policies and defaults shared by every host (DESIGN §2).

Looked up from the working directory upwards. The walk stops at a
repository root (a folder with ``.git``), at a ceiling the host knows (the
root of the repository ArgoCD unpacked), at the user's home, and at a
filesystem boundary: without those stops a folder outside any repository
would take a ``.tfpolicy.yaml`` from anywhere above it, up to ``/``.

The file itself, and the policy paths in it, must stay inside its
repository (the folder with ``.git`` above it, else the file's own folder),
symlinks resolved: a config is data a repository ships, and must not make
tfpolicy read the files of whoever runs it.

Every command and host decides its policies, namespace and operator
configuration by one function, ``configure``: what the command was given
(flags, a host's environment) first, then the config, then the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import confine_refs, inside
from tfpolicy.policy.schema import shape, validate

FILENAME = ".tfpolicy.yaml"
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path
    policies: tuple[str, ...]
    namespace: str | None = None
    format: str | None = None
    operator: tuple[str, ...] = ()  # operator config files (``operatorConfig``), from base

    @property
    def base(self) -> Path:
        return self.path.parent


@dataclass(frozen=True, slots=True)
class Configuration:
    """What a run decided, whichever command or host runs it (``configure``)."""

    policies: tuple[str, ...]  # policy paths or built-in names
    base: Path  # what relative policy paths are relative to
    namespace: str  # for manifests that name none
    operator: tuple[str, ...]  # ProviderConfig & co. files, as paths usable from the cwd
    format: str | None  # findings' format, when given or configured
    config: ProjectConfig | None  # the config that governs the run (its scope), if any


@dataclass(frozen=True, slots=True)
class Given:
    """What a command was given besides the config: flags, or a host's environment."""

    policies: tuple[str, ...] = ()
    base: Path = Path(".")  # what the given policy paths are relative to
    namespace: str | None = None
    operator: tuple[str, ...] = ()
    format: str | None = None


def configure(config: ProjectConfig | None, given: Given = Given()) -> Configuration:
    """The one resolution: what was given wins, field by field, over the config, and the
    config over the defaults (no policy, namespace ``default``, no operator files)."""
    policies, base = given.policies, given.base
    if not policies and config is not None:
        policies, base = config.policies, config.base
    namespace = given.namespace or (config.namespace if config else None) or DEFAULT_NAMESPACE
    operator = given.operator
    if not operator and config is not None:
        operator = tuple(str(config.base / ref) for ref in config.operator)
    fmt = given.format or (config.format if config else None)
    return Configuration(policies, base, namespace, operator, fmt, config)


@dataclass(frozen=True, slots=True)
class Lookup:
    """Where the walk found a config (or none), and why it stopped where it did."""

    config: ProjectConfig | None
    stopped: Path
    reason: str

    def explain(self) -> str:
        if self.config is not None:
            return f"using {self.config.path}"
        return f"no {FILENAME} found; the lookup stopped at {self.stopped} ({self.reason})"


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
        data_bytes = path.resolve().read_bytes()
    except OSError as exc:
        raise TfpolicyError(f"cannot read: {exc.strerror}", file=str(path)) from None
    text = yamlio.decode(data_bytes, str(path))
    docs = [(raw, yamlio.parse_document(raw.text, file=str(path), line=raw.line))
            for raw in yamlio.split_documents(text)]
    docs = [(raw, parsed) for raw, parsed in docs if parsed.node is not None]
    if len(docs) > 1:  # silently taking the first would ignore what the user wrote below it
        raise TfpolicyError(f"{len(docs)} YAML documents: a project config is one document",
                            file=str(path), line=docs[1][0].line + 1)
    config = docs[0][1].data if docs else {}
    if not isinstance(config, dict):  # by its shape: never quote what the file holds
        raise TfpolicyError(f"the document is {shape(config)}, not a project config mapping "
                            "($)", file=str(path))
    for violation in validate(config, "config"):
        raise TfpolicyError(f"{violation.message} ({violation.json_path})", file=str(path))
    policies = tuple(config.get("policies", []))
    confine_refs(policies, path.parent, root or path.parent, str(path))
    operator = tuple(config.get("operatorConfig", []))
    for ref in operator:  # always a path, never a built-in name
        if not inside(path.parent / ref, (root or path.parent).resolve()):
            raise TfpolicyError(f"operatorConfig path {ref!r} leaves the repository: operator "
                                "config files named here must be inside it", file=str(path))
    return ProjectConfig(path, policies, config.get("namespace"), config.get("format"),
                         operator)
