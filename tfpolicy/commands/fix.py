"""``tfpolicy fix``: rewrite files in place, atomically, only changed ones (pre-commit style)."""

from __future__ import annotations

import click

from tfpolicy.commands.common import emit_findings, engine_options, resolve
from tfpolicy.commands.rewrite import BOM, rewrite_files
from tfpolicy.errors import ExitCode
from tfpolicy.findings import has_errors
from tfpolicy.output import write_atomic


@click.command()
@engine_options
@click.argument("paths", nargs=-1, type=click.Path())
def fix(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
        paths: tuple[str, ...]) -> int:
    """Rewrite manifest files in place; exit 1 when any file changed."""
    run = resolve(policies, namespace, fmt, explain)
    rewrites, findings, _ = rewrite_files(run, paths)
    changed = [r for r in rewrites if r.changed]
    for rewrite in changed:
        prefix = BOM.decode("utf-8") if rewrite.bom else ""
        write_atomic(rewrite.path, prefix + rewrite.text)
        click.echo(f"Fixing {rewrite.path}")
    emit_findings(findings, run.fmt, err=True)
    return ExitCode.FINDINGS if changed or has_errors(findings) else ExitCode.OK
