"""``tfpolicy apply``: rewrite manifests; stdout carries the manifest stream only.

The output is spooled to a temporary file and copied to stdout only once
every document went through, so bad input leaves stdout empty (exit 2)
while memory stays flat however long the stream is.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

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
from tfpolicy.files.outdir import destinations
from tfpolicy.files.runner import named
from tfpolicy.files.scopes import Run
from tfpolicy.files.sources import manifest_files, shown_name
from tfpolicy.files.stdout import copy_out
from tfpolicy.files.streamed import rewrite_to_folder, rewrite_to_spool
from tfpolicy.findings import Finding, Severity, fails


@command("apply")
@engine_options
@jobs_option
@fail_on_option
@click.option("-o", "--output", "output", type=click.Path(file_okay=False), default=None,
              help="Write one file per input file under this folder (a named file by its "
                   "name, a folder's files by their path in it) instead of stdout.")
@paths_argument()
def apply(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
          fail_on: Severity, output: str | None, paths: tuple[str, ...]) -> int:
    """The engine over a stream: every document through, spooled, then copied to stdout
    whole (or to one file per input with ``-o``); findings on stderr."""
    run = engine_run(policies, namespace, fmt, explain)
    if output is not None:
        pairs = destinations(named(paths), Path(output))
        none_found(len(pairs), paths)
        findings = rewrite_to_folder(run, pairs)
        _report(findings, run, [file for file, _ in pairs], fail_on)
        return ExitCode.FINDINGS if fails(findings, fail_on) else ExitCode.OK
    files = list(manifest_files(named(paths, stdin=True)))
    none_found(len(files), paths)
    with tempfile.TemporaryFile() as spool:
        findings = rewrite_to_spool(run, files, spool)
        _report(findings, run, files, fail_on)
        spool.seek(0)
        copy_out(spool)  # all of it, or exit 141: a short write must not end in exit 0
    return ExitCode.FINDINGS if fails(findings, fail_on) else ExitCode.OK


def _report(findings: list[Finding], run: Run, files: list[str], fail_on: Severity) -> None:
    """The findings on stderr, stdout being the manifests'."""
    emit_file_findings(findings, run.fmt, [shown_name(f) for f in files], err=True,
                       fail_on=fail_on)
    emit_not_migrated(findings, run.fmt)
