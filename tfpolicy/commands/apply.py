"""``tfpolicy apply``: rewrite manifests; stdout carries the manifest stream only.

The output is spooled to a temporary file and copied to stdout only once
every document went through and the findings are out, so bad input leaves
stdout empty (exit 2) while memory stays flat however long the stream is.
"""

from __future__ import annotations

import click

from tfpolicy.commands.options import (
    command,
    engine_options,
    engine_run,
    fail_on_option,
    jobs_option,
    paths_argument,
)
from tfpolicy.commands.printing import emit_file_findings, emit_not_migrated, none_found
from tfpolicy.errors import ExitCode
from tfpolicy.files.stdout import copy_out
from tfpolicy.files.streamed import rewritten
from tfpolicy.findings import Severity, fails


@command("apply")
@engine_options
@jobs_option
@fail_on_option
@click.option("-o", "--output-dir", "output", type=click.Path(file_okay=False), default=None,
              metavar="DIR",
              help="Write one file per input file under this folder (a named file by its "
                   "name, a folder's files by their path in it) instead of stdout.")
@click.option("--output", "old_output", type=click.Path(file_okay=False), default=None,
              hidden=True)  # --output-dir's old name, still read
@paths_argument()
def apply(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
          fail_on: Severity, output: str | None, old_output: str | None,
          paths: tuple[str, ...]) -> int:
    """The engine over a stream: every document through, spooled, then copied to stdout
    whole (or to one file per input with ``-o``); findings on stderr."""
    run = engine_run(policies, namespace, fmt, explain)
    with rewritten(run, paths, output or old_output) as done:
        none_found(len(done.files), paths)
        emit_file_findings(done.findings, run.fmt, done.files, err=True, fail_on=fail_on)
        emit_not_migrated(done.findings, run.fmt)
        if done.spool is not None:
            copy_out(done.spool)  # all of it, or exit 141: a short write must not end in exit 0
    return ExitCode.FINDINGS if fails(done.findings, fail_on) else ExitCode.OK
