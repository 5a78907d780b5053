"""``tfpolicy check``: report what ``fix`` would change and every finding; write nothing."""

from __future__ import annotations

import click

from tfpolicy.commands.options import (
    HookCommand,
    command,
    engine_options,
    engine_run,
    fail_on_option,
    hook_options,
    jobs_option,
    paths_argument,
)
from tfpolicy.commands.printing import emit_file_findings, emit_not_migrated, tell_passed_over
from tfpolicy.errors import ExitCode
from tfpolicy.files.check_findings import change_findings, trap_findings
from tfpolicy.files.runner import Rewrite, rewrite_files
from tfpolicy.findings import Severity, fails
from tfpolicy.render import MACHINE, visible


@command("check", HookCommand)
@engine_options
@hook_options
@jobs_option
@fail_on_option
@click.option("--diff", "show_diff", is_flag=True,
              help="Also print what fix would change, as a unified diff.")
@paths_argument()
def check(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
          fail_on: Severity, show_diff: bool, paths: tuple[str, ...]) -> int:
    """What ``fix`` would change and every finding, written nowhere; a pre-commit hook
    runs it on every commit, so it starts small (docs/speed.md)."""
    run = engine_run(policies, namespace, fmt, explain)
    ran = rewrite_files(run, paths, keep_original=show_diff)
    tell_passed_over(ran, run, paths)
    findings = ran.findings + trap_findings(ran.rewrites, run, ran.findings)
    reported = findings + change_findings(ran.changes)
    emit_file_findings(reported, run.fmt, [r.path for r in ran.rewrites], err=False,
                       fail_on=fail_on)
    emit_not_migrated(findings, run.fmt)
    if show_diff:  # never inside a report a program reads: then the diff goes to stderr
        click.echo("".join(_diff(r) for r in ran.rewrites if r.changed), nl=False,
                   err=run.fmt in MACHINE)
    return ExitCode.FINDINGS if ran.changes or fails(findings, fail_on) else ExitCode.OK


def _diff(rewrite: Rewrite) -> str:
    import difflib  # here: only --diff needs it, and check starts on every commit

    before = rewrite.original.splitlines(keepends=True)
    after = rewrite.text.splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{rewrite.path}", f"b/{rewrite.path}")
    # The text as read, but what would act on a terminal rather than show (docs/commands.md).
    return visible("".join(line if line.endswith("\n") else line + "\n" for line in lines),
                   lines=True)
