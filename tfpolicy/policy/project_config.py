"""Project config ``.tfpolicy.yaml``: policies and defaults shared by every host (docs/design.md,
"Policies and the project config").

This is what a config's text says (``parse_config``) and what a run decides
from it; finding the file and reading it, inside its repository, is the
edge's (``tfpolicy.files.project``).

Every command and host decides its policies, namespace and operator
configuration by one function, ``resolve_config``: what the command was given
(flags, a host's environment) first, then the config, then the defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.gates.spec import GateConfig, gate_config
from tfpolicy.policy.excludes import normalised
from tfpolicy.policy.rung import BUILTIN_RUNGS, Where
from tfpolicy.policy.schema import shape, validate
from tfpolicy.records import Record

FILENAME = ".tfpolicy.yaml"
DEFAULT_NAMESPACE = "default"


class ProjectConfig(Record):
    path: Path
    policies: tuple[str, ...]
    namespace: str | None = None
    format: str | None = None
    operator: tuple[str, ...] = ()  # operator config files (``operatorConfig``), from base
    gates: GateConfig = GateConfig()  # ``gates``, ``builtinGates``, ``prometheus`` (docs/gates.md)
    exclude: tuple[str, ...] = ()  # globs under base no walk reads (tfpolicy.policy.excludes)
    rung: str | None = None  # ``rung:``, the plan step its policies are at (policy.rung)
    rung_at: Where | None = None  # where ``rung:`` is written
    accept_preallocation: tuple[str, ...] = ()  # workloads promote may starve (globs)

    @property
    def base(self) -> Path:
        return self.path.parent


class Configuration(Record):
    """What a run decided, whichever command or host runs it (``resolve_config``)."""

    policies: tuple[str, ...]  # policy paths or built-in names
    base: Path  # what relative policy paths are relative to
    namespace: str  # for manifests that name none
    operator: tuple[str, ...]  # ProviderConfig & co. files, as paths usable from the cwd
    format: str | None  # findings' format, when given or configured
    config: ProjectConfig | None  # the config that governs the run (its scope), if any
    rung: str | None = None  # the config's ``rung:`` when its policies are the run's
    rung_at: Where | None = None


class Given(Record):
    """What a command was given besides the config: flags, or a host's environment."""

    policies: tuple[str, ...] = ()
    base: Path = Path(".")  # what the given policy paths are relative to
    namespace: str | None = None
    operator: tuple[str, ...] = ()
    format: str | None = None


NOTHING_GIVEN = Given()


def resolve_config(config: ProjectConfig | None, given: Given = NOTHING_GIVEN) -> Configuration:
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
    ours = not given.policies and config is not None
    return Configuration(policies, base, namespace, operator, fmt, config,
                         config.rung if ours and config else None,
                         config.rung_at if ours and config else None)


def parse_config(data: bytes, path: Path) -> ProjectConfig:
    """The config that ``data``, the bytes of ``path``, holds: one document, by the schema,
    each violation located at its line and column.

    Where the policy and operator paths it names lead is the reader's to check."""
    config, place = _document(yamlio.decode(data, str(path)), path)
    if not isinstance(config, dict):  # by its shape: never quote what the file holds
        raise TfpolicyError(f"the document is {shape(config)}, not a project config mapping "
                            "($)", file=str(path))
    for violation in validate(config, "config"):
        line, column = place(violation.path)
        raise TfpolicyError(f"{violation.message} ({violation.json_path})", file=str(path),
                            line=line, column=column)
    return ProjectConfig(path, tuple(config.get("policies", [])), config.get("namespace"),
                         config.get("format"), tuple(config.get("operatorConfig", [])),
                         gate_config(config, place),
                         normalised(tuple(config.get("exclude", []))),
                         *_rung(config, path, place),
                         tuple(config.get("acceptPreallocation", [])))


def _rung(config: dict[str, Any], path: Path, place: Place) -> tuple[str | None, Where | None]:
    """``rung:`` and where it stands; beside a built-in rung in ``policies`` it is refused:
    the two would name two places on the ladder."""
    if "rung" not in config:
        return None, None
    where = Where(str(path), *place(("rung",)))
    builtin = [ref for ref in config.get("policies", []) if ref in BUILTIN_RUNGS[:-1]]
    if builtin:
        raise TfpolicyError(f"rung: the policies name the built-in rung {builtin[0]!r} "
                            "already: with rung:, name the policy the ladder climbs "
                            "(takeover, or a rightsize policy)",
                            file=where.file, line=where.line, column=where.column)
    return str(config["rung"]), where


Place = Callable[[tuple[str | int, ...]], tuple[int, int]]


def _document(text: str, path: Path) -> tuple[Any, Place]:
    """The one document's data, and where a path inside it stands (1-based)."""
    docs = [(raw, yamlio.parse_document(raw.text, file=str(path), line=raw.line))
            for raw in yamlio.split_documents(text)]
    docs = [(raw, parsed) for raw, parsed in docs if parsed.node is not None]
    if len(docs) > 1:  # silently taking the first would ignore what the user wrote below it
        raise TfpolicyError(f"{len(docs)} YAML documents: a project config is one document",
                            file=str(path), line=docs[1][0].line + 1)
    if not docs:
        return {}, lambda where: (1, 1)
    raw, parsed = docs[0]

    def place(where: tuple[str | int, ...]) -> tuple[int, int]:
        line, column = yamlio.locate(parsed.node, where)
        return raw.line + line + 1, column + 1

    return parsed.data, place
