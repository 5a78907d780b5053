"""``tfpolicy check``: report what ``fix`` would change and every finding; write nothing.

A pre-commit hook runs it on every commit, so it starts small (docs/speed.md): a plain
command line is read without click (``tfpolicy.commands.engine_line``), and the click
command, for any other, is built only when the group asks for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfpolicy.commands.engine_line import EngineLine, engine_run
from tfpolicy.commands.printing import (
    emit_file_findings,
    emit_not_migrated,
    say,
    tell_passed_over,
)
from tfpolicy.errors import ExitCode
from tfpolicy.files.check_findings import change_findings, trap_findings
from tfpolicy.files.runner import Rewrite, rewrite_files
from tfpolicy.findings import fails
from tfpolicy.render import MACHINE, visible

if TYPE_CHECKING:
    import click


def run(line: EngineLine) -> int:
    """What ``fix`` would change and every finding, written nowhere."""
    run = engine_run(line)
    ran = rewrite_files(run, line.paths, keep_original=line.show_diff)
    tell_passed_over(ran, run, line.paths)
    findings = ran.findings + trap_findings(ran.rewrites, run, ran.findings)
    reported = findings + change_findings(ran.changes)
    emit_file_findings(reported, run.fmt, [r.path for r in ran.rewrites], err=False,
                       fail_on=line.fail_on)
    emit_not_migrated(findings, run.fmt)
    if line.show_diff:  # never inside a report a program reads: then the diff goes to stderr
        say("".join(_diff(r) for r in ran.rewrites if r.changed), nl=False,
            err=run.fmt in MACHINE)
    failed = ran.changes or fails(findings, line.fail_on)
    return ExitCode.FINDINGS if failed else ExitCode.OK


def _diff(rewrite: Rewrite) -> str:
    import difflib  # here: only --diff needs it, and check starts on every commit

    before = rewrite.original.splitlines(keepends=True)
    after = rewrite.text.splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{rewrite.path}", f"b/{rewrite.path}")
    # The text as read, but what would act on a terminal rather than show (docs/commands.md).
    return visible("".join(line if line.endswith("\n") else line + "\n" for line in lines),
                   lines=True)


def _click_command() -> click.Command:
    import click

    from tfpolicy.commands.options import (
        HookCommand,
        command,
        engine_line,
        engine_options,
        fail_on_option,
        hook_options,
        jobs_option,
        paths_argument,
    )

    @command("check", HookCommand)
    @engine_options
    @hook_options
    @jobs_option
    @fail_on_option
    @click.option("--diff", "show_diff", is_flag=True,
                  help="Also print what fix would change, as a unified diff.")
    @paths_argument()
    def check(**given: Any) -> int:
        return run(engine_line(given))

    return check


def __getattr__(name: str) -> object:
    """``check``, the click command, built the first time the group asks for it."""
    if name != "check":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = built = _click_command()
    return built
