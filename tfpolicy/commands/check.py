"""``tfpolicy check``: report what ``fix`` would change and every finding; write nothing."""

from __future__ import annotations

import click

from tfpolicy.commands.common import emit_findings, engine_options, resolve
from tfpolicy.commands.rewrite import change_findings, rewrite_files, trap_findings
from tfpolicy.errors import ExitCode
from tfpolicy.findings import has_errors


@click.command()
@engine_options
@click.argument("paths", nargs=-1, type=click.Path())
def check(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
          paths: tuple[str, ...]) -> int:
    """Exit 1 when any file would change or any error is found.

    Also warns about webhook traps (reference §9) left in what ``fix`` would write.
    """
    run = resolve(policies, namespace, fmt, explain)
    rewrites, findings, changes = rewrite_files(run, paths)
    findings += trap_findings(rewrites, run, findings)
    emit_findings(findings + change_findings(changes), run.fmt, err=False)
    return ExitCode.FINDINGS if changes or has_errors(findings) else ExitCode.OK
