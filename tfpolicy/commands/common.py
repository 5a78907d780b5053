"""Options every engine command shares, and how they resolve (flags, then .tfpolicy.yaml)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from tfpolicy.config import ProjectConfig, lookup
from tfpolicy.engine import PolicySet
from tfpolicy.findings import Finding
from tfpolicy.pipeline import Options
from tfpolicy.render import FORMATS
from tfpolicy.sources import load_policy_set

F = TypeVar("F", bound=Callable[..., Any])


def engine_options(func: F) -> F:
    options = [
        click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
                     help="Policy file or built-in name (repeatable); default: .tfpolicy.yaml."),
        click.option("-n", "--namespace", default=None,
                     help="Namespace for manifests that name none [default: default]."),
        click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
                     help="How findings are printed [default: text]."),
        click.option("--explain", is_flag=True, help="Say why each GPU workload was not selected."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@dataclass(frozen=True, slots=True)
class Run:
    policies: PolicySet
    options: Options
    fmt: str


def resolve(policies: tuple[str, ...], namespace: str | None, fmt: str | None,
            explain: bool) -> Run:
    """The policy set and options, from flags first, then the project config."""
    found = lookup(Path.cwd())
    config = found.config
    if explain and not policies:
        click.echo(f"tfpolicy: {found.explain()}", err=True)
    refs, base = _refs(policies, config)
    namespace = namespace or (config.namespace if config else None) or "default"
    fmt = fmt or (config.format if config else None) or "text"
    return Run(load_policy_set(refs, base), Options(namespace, explain), fmt)


def _refs(given: tuple[str, ...], config: ProjectConfig | None) -> tuple[list[str], Path]:
    if given:
        return list(given), Path(".")
    if config is not None:
        return list(config.policies), config.base
    return [], Path(".")


def emit_findings(findings: list[Finding], fmt: str, *, err: bool) -> None:
    text = FORMATS[fmt](findings)
    if text:
        stream = sys.stderr if err else sys.stdout
        stream.write(text)
        stream.flush()
