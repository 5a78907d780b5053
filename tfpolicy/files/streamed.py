"""``apply``'s run: the engine over a stream of documents, file after file, in order.

Files are read in pieces (``PIECE_BYTES``) and go through the workers as
they come, so memory stays flat however long the stream is; stdin (``-``)
is one of the files. The output is one stream of documents (each later
file's first document starts a new one), or one text per input file for
``apply -o DIR``. Nothing is written to stdout here: the command copies the
spool out once every document went through.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from tfpolicy import yamlio
from tfpolicy.files.outdir import write_outputs
from tfpolicy.files.progress import progress
from tfpolicy.files.scopes import Run
from tfpolicy.files.sources import STDIN, shown_name
from tfpolicy.findings import Finding
from tfpolicy.rewrite.pipeline import PIECE_BYTES, transform_stream

_OPENS_DOCUMENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\n)*---")


def rewrite_to_spool(run: Run, files: list[str], spool: BinaryIO) -> list[Finding]:
    """Every file's documents rewritten into ``spool`` as one stream; the findings."""
    findings: list[Finding] = []
    shown = progress(len(files), run.quiet)
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
    return findings


def rewrite_to_folder(run: Run, pairs: list[tuple[str, Path]]) -> list[Finding]:
    """Every input's rewritten text into its output file (``outdir.destinations``), the
    files written only once all of them went through; the findings."""
    findings: list[Finding] = []
    texts: list[list[str]] = []
    shown = progress(len(pairs), run.quiet)
    for done in transform_stream(_pieces([file for file, _ in pairs]), run.policies,
                                 run.options, run.jobs):
        if done.opens:
            shown.step(done.file)
            texts.append([])
        texts[-1].append(done.outcome.text)
        findings.extend(done.outcome.findings)
    shown.close()
    write_outputs([(target, "".join(text).encode("utf-8"))
                   for (_, target), text in zip(pairs, texts, strict=True)])
    return findings


def _pieces(files: list[str]) -> Iterator[tuple[str, yamlio.Piece]]:
    """Every file's pieces, in order, each with the name findings give its file."""
    for file in files:
        with _opened(file) as stream:
            for piece in yamlio.read_pieces(stream, PIECE_BYTES):
                yield shown_name(file), piece


def _separated(text: str, ended: bool) -> str:
    """A later file's first document, made to start a new document in the joined stream."""
    head = "" if ended else "\n"
    return head + (text if _OPENS_DOCUMENT.match(text) else "---\n" + text)


@contextmanager
def _opened(file: str) -> Iterator[BinaryIO]:
    if file == STDIN:
        yield sys.stdin.buffer
        return
    with open(file, "rb") as handle:
        yield handle
