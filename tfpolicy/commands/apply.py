"""``tfpolicy apply``: rewrite manifests; stdout carries the manifest stream only.

The output is spooled to a temporary file and copied to stdout only once
every document went through, so bad input leaves stdout empty (exit 2)
while memory stays flat however long the stream is.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import click

from tfpolicy import yamlio
from tfpolicy.commands.options import (
    Run,
    command,
    engine_options,
    fail_on_option,
    jobs_option,
    named,
    resolve,
)
from tfpolicy.commands.printing import emit_file_findings, emit_not_migrated, none_found
from tfpolicy.commands.progress import progress
from tfpolicy.errors import ExitCode
from tfpolicy.files.outdir import destinations, write_outputs
from tfpolicy.files.sources import STDIN, manifest_files
from tfpolicy.files.stream import copy_out
from tfpolicy.findings import Finding, Severity, fails
from tfpolicy.rewrite.pipeline import PIECE_BYTES, transform_stream

_OPENS_DOCUMENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\n)*---")


@command("apply")
@engine_options
@jobs_option
@fail_on_option
@click.option("-o", "--output", "output", type=click.Path(file_okay=False), default=None,
              help="Write one file per input file under this folder (a named file by its "
                   "name, a folder's files by their path in it) instead of stdout.")
@click.argument("paths", nargs=-1, type=click.Path())
def apply(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
          fail_on: Severity, output: str | None, paths: tuple[str, ...]) -> int:
    """The engine over a stream: every document through, spooled, then copied to stdout
    whole (or to one file per input with ``-o``); findings on stderr."""
    run = resolve(policies, namespace, fmt, explain)
    if output is not None:
        return _to_folder(run, named(paths), Path(output), fail_on)
    findings: list[Finding] = []
    files = list(manifest_files(named(paths, stdin=True)))
    none_found(files, paths)
    shown = progress(len(files))
    with tempfile.TemporaryFile() as spool:
        ended, later = True, False
        for done in transform_stream(_pieces(files), run.policies, run.options, run.jobs):
            text = done.outcome.text
            if done.opens:
                shown.step(done.file)
                if later and text:
                    text = _separated(text, ended)
                later = True
            spool.write(text.encode("utf-8"))
            ended = text.endswith("\n") if text else ended
            findings.extend(done.outcome.findings)
        shown.close()
        emit_file_findings(findings, run.fmt, [_shown(f) for f in files], err=True,
                           fail_on=fail_on)
        emit_not_migrated(findings, run.fmt)
        spool.seek(0)
        copy_out(spool)  # all of it, or exit 141: a short write must not end in exit 0
    return ExitCode.FINDINGS if fails(findings, fail_on) else ExitCode.OK


def _to_folder(run: Run, paths: tuple[str, ...], folder: Path, fail_on: Severity) -> int:
    """Every input's rewritten text, written only once all of them went through."""
    findings: list[Finding] = []
    pairs = destinations(paths, folder)
    texts: list[list[str]] = []
    shown = progress(len(pairs))
    files = [file for file, _ in pairs]
    none_found(files, paths)
    for done in transform_stream(_pieces(files), run.policies, run.options, run.jobs):
        if done.opens:
            shown.step(done.file)
            texts.append([])
        texts[-1].append(done.outcome.text)
        findings.extend(done.outcome.findings)
    shown.close()
    write_outputs([(target, "".join(text).encode("utf-8"))
                   for (_, target), text in zip(pairs, texts, strict=True)])
    emit_file_findings(findings, run.fmt, [_shown(f) for f in files], err=True,
                       fail_on=fail_on)
    emit_not_migrated(findings, run.fmt)
    return ExitCode.FINDINGS if fails(findings, fail_on) else ExitCode.OK


def _pieces(files: list[str]) -> Iterator[tuple[str, yamlio.Piece]]:
    """Every file's pieces, in order, each with the name findings give its file."""
    for file in files:
        with _opened(file) as stream:
            for piece in yamlio.read_pieces(stream, PIECE_BYTES):
                yield _shown(file), piece


def _separated(text: str, ended: bool) -> str:
    """A later file's first document, made to start a new document in the joined stream."""
    head = "" if ended else "\n"
    return head + (text if _OPENS_DOCUMENT.match(text) else "---\n" + text)


def _shown(file: str) -> str:
    return "<stdin>" if file == STDIN else file


@contextmanager
def _opened(file: str) -> Iterator[BinaryIO]:
    if file == STDIN:
        yield sys.stdin.buffer
        return
    with open(file, "rb") as handle:
        yield handle
