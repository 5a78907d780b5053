"""``tfpolicy validate``: every schema violation of the policy files, at file:line:col."""

from __future__ import annotations

from pathlib import Path

import click

from tfpolicy.commands.common import emit_findings
from tfpolicy.config import find_config
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.render import FORMATS
from tfpolicy.sources import check_policy_files


@click.command()
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default="text")
@click.argument("policies", nargs=-1)
def validate(fmt: str, policies: tuple[str, ...]) -> int:
    """Validate policy files (default: the policies of .tfpolicy.yaml)."""
    refs, base = list(policies), Path(".")
    if not refs:
        config = find_config(Path.cwd())
        if config is None:
            raise TfpolicyError("no policy files given and no .tfpolicy.yaml found")
        refs, base = list(config.policies), config.base
    found, findings = check_policy_files(refs, base)
    if findings:  # exit 2 is bad input: stdout stays empty, as for every command
        emit_findings(findings, fmt, err=True)
        return ExitCode.INVALID
    click.echo(f"{len(found)} policies valid", err=True)
    return ExitCode.OK
