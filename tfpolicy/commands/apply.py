"""``tfpolicy apply``: rewrite manifests; stdout carries the manifest stream only.

The output is spooled to a temporary file and copied to stdout only once
every document went through and the findings are out, so bad input leaves
stdout empty (exit 2) while memory stays flat however long the stream is. As
``check``, a plain command line is read without click
(``tfpolicy.commands.engine_line``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfpolicy.commands.engine_line import EngineLine, engine_run
from tfpolicy.commands.printing import emit_file_findings, emit_not_migrated, none_found
from tfpolicy.errors import ExitCode
from tfpolicy.files.stdout import copy_out
from tfpolicy.files.streamed import rewritten
from tfpolicy.findings import fails

if TYPE_CHECKING:
    import click


def run(line: EngineLine) -> int:
    """The engine over a stream: every document through, spooled, then copied to stdout
    whole (or to one file per input with ``-o``); findings on stderr."""
    run = engine_run(line)
    with rewritten(run, line.paths, line.output or line.old_output) as done:
        none_found(len(done.files), line.paths)
        emit_file_findings(done.findings, run.fmt, done.files, err=True,
                           fail_on=line.fail_on)
        emit_not_migrated(done.findings, run.fmt)
        if done.spool is not None:
            copy_out(done.spool)  # all of it, or exit 141: a short write must not end in exit 0
    return ExitCode.FINDINGS if fails(done.findings, line.fail_on) else ExitCode.OK


def _click_command() -> click.Command:
    import click

    from tfpolicy.commands.options import (
        command,
        engine_line,
        engine_options,
        fail_on_option,
        jobs_option,
        paths_argument,
    )

    @command("apply")
    @engine_options
    @jobs_option
    @fail_on_option
    @click.option("-o", "--output-dir", "output", type=click.Path(file_okay=False),
                  default=None, metavar="DIR",
                  help="Write one file per input file under this folder (a named file by "
                       "its name, a folder's files by their path in it) instead of stdout.")
    @click.option("--output", "old_output", type=click.Path(file_okay=False), default=None,
                  hidden=True)  # --output-dir's old name, still read
    @paths_argument()
    def apply(**given: Any) -> int:
        return run(engine_line(given))

    return apply


def __getattr__(name: str) -> object:
    """``apply``, the click command, built the first time the group asks for it."""
    if name != "apply":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = built = _click_command()
    return built
