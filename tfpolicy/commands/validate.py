"""``tfpolicy validate``: every schema violation of the policy files, at file:line:col."""

from __future__ import annotations

from pathlib import Path

import click

from tfpolicy.commands.options import (
    HookCommand,
    command,
    format_option,
    resolve_flags,
)
from tfpolicy.commands.printing import emit_findings
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.governed import POLICY_KIND
from tfpolicy.files.project import lookup
from tfpolicy.files.sources import check_policy_files, read_text
from tfpolicy.findings import Finding
from tfpolicy.policy.model import Policy
from tfpolicy.policy.project_config import FILENAME
from tfpolicy.render import FORMATS


@command("validate", HookCommand)
@format_option(sorted(FORMATS), show_default=False)
@click.option("--discover", is_flag=True,
              help="Of the files named, validate every one holding a kind: MigrationPolicy, "
                   "and the policies of each .tfpolicy.yaml named; skip the rest (the "
                   "pre-commit hook uses it).")
@click.option("--hook", is_flag=True,
              help="What the pre-commit hook runs: --discover, and every name after `--` is "
                   "a file.")
@click.argument("policies", nargs=-1)
def validate(fmt: str, discover: bool, hook: bool, policies: tuple[str, ...]) -> int:
    """Every violation of every policy file named (or configured), at file:line:col."""
    if discover or hook:
        found, findings = _discovered(policies)
    else:
        found, findings = _named(policies)
    if findings:  # exit 2 is bad input: stdout stays empty, as for every command
        emit_findings(findings, fmt, err=True)
        return ExitCode.INVALID
    click.echo(f"{len(found)} policies valid", err=True)
    return ExitCode.OK


def _named(names: tuple[str, ...]) -> tuple[list[Policy], list[Finding]]:
    """A named .tfpolicy.yaml is validated as a configuration (its schema and the policies
    it lists), as the hook validates it; every other name must be a policy."""
    configs = tuple(name for name in names if Path(name).name == FILENAME)
    found, findings = _discovered(configs) if configs else ([], [])
    rest = tuple(name for name in names if name not in configs)
    if rest or not configs:
        refs, base = _refs(rest)
        more, problems = check_policy_files(refs, base)
        found, findings = [*found, *more], [*findings, *problems]
    return found, findings


def _refs(policies: tuple[str, ...]) -> tuple[list[str], Path]:
    decided = resolve_flags(policies, None)
    if decided.config is None and not policies:
        raise TfpolicyError("no policy files given and no .tfpolicy.yaml found")
    return list(decided.policies), decided.base


def _discovered(files: tuple[str, ...]) -> tuple[list[Policy], list[Finding]]:
    """Each named policy file and each named config's policies, checked once each."""
    found: list[Policy] = []
    findings: list[Finding] = []
    seen: set[str] = set()
    for refs, base in _sources(files):
        for ref in refs:  # a file a config lists and that was named too is checked once
            key = str((base / ref).resolve()) if (base / ref).is_file() else ref
            if key not in seen:
                seen.add(key)
                policies, problems = check_policy_files([ref], base)
                found.extend(policies)
                findings.extend(problems)
    return found, findings


def _sources(files: tuple[str, ...]) -> list[tuple[list[str], Path]]:
    sources: list[tuple[list[str], Path]] = []
    for file in sorted(set(files)):
        path = Path(file)
        if path.name == FILENAME:
            config = lookup(path.parent).config  # this very file, its repository known
            if config is not None:
                sources.append((list(config.policies), config.base))
        elif path.suffix in (".yaml", ".yml", ".json") and POLICY_KIND.search(read_text(file)):
            sources.append(([file], Path(".")))
    return sources
