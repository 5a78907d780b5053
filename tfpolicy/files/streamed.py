"""``apply``'s run: the engine over a stream of documents, file after file, in order.

Files are read in pieces (``PIECE_BYTES``) and go through the workers as
they come, so memory stays flat however long the stream is; stdin (``-``)
is one of the files. The output is one stream of documents (each later
file's first document starts a new one), or one text per input file for
``apply -o DIR``. Nothing is written to stdout here: the command copies the
spool out once every document went through.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.listing import manifest_files, named
from tfpolicy.files.progress import counted
from tfpolicy.files.scopes import Run
from tfpolicy.files.sources import STDIN, open_regular, shown_name
from tfpolicy.findings import Finding
from tfpolicy.records import Record
from tfpolicy.rewrite.pipeline import PIECE_BYTES, StreamOutcome, transform_stream
from tfpolicy.rewrite.spool import IN_MEMORY

_OPENS_DOCUMENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\n)*---")


class Streamed(Record):
    """What went through: the findings, the files as findings name them, and the spool
    the stream waits in for stdout (none when ``-o DIR`` wrote the files)."""

    findings: list[Finding]
    files: list[str]
    spool: BinaryIO | None


@contextmanager
def rewritten(run: Run, paths: tuple[str, ...], folder: str | None) -> Iterator[Streamed]:
    """Every document of the files ``paths`` name (``-``: stdin) through the engine: into
    one file per input under ``folder``, written once all went through, or else into a
    spool, rewound, which lasts while the context does."""
    with ExitStack() as stack:
        sink: OneStream | PerFile
        if folder is None:
            files = list(manifest_files(named(paths, stdin=True)))
            sink = OneStream()
            stack.callback(sink.close)
        else:
            from tfpolicy.files.outdir import destinations  # here: only -o DIR writes files

            pairs = destinations(named(paths), Path(folder))
            files, sink = [file for file, _ in pairs], PerFile(pairs)
        findings = _through(run, files, sink)
        sink.finish()
        yield Streamed(findings, [shown_name(file) for file in files], sink.spool)


def _through(run: Run, files: list[str], sink: OneStream | PerFile) -> list[Finding]:
    """Every file's documents through the engine into ``sink``; the findings."""
    findings: list[Finding] = []
    for done in counted(transform_stream(_pieces(files), run.policies, run.options, run.jobs),
                        len(files), run.quiet):
        sink.add(done)
        findings.extend(done.outcome.findings)
    return findings


class OneStream:
    """The documents of every file as one stream in ``spool``, a later file's first
    document made to start a new one: in memory up to ``IN_MEMORY`` bytes (a small run
    touches no disk and imports no ``tempfile``), in a temporary file past them."""

    def __init__(self) -> None:
        self.spool: BinaryIO = io.BytesIO()
        self._on_disk = False
        self._ended, self._later = True, False

    def add(self, done: StreamOutcome) -> None:
        text = done.outcome.text
        if done.opens:
            if self._later and text:
                text = _separated(text, self._ended)
            self._later = True
        self.spool.write(text.encode("utf-8"))
        self._ended = text.endswith("\n") if text else self._ended
        if not self._on_disk and self.spool.tell() > IN_MEMORY:
            self._to_disk()

    def _to_disk(self) -> None:
        import tempfile

        disk = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close)
        self.spool.seek(0)
        disk.write(self.spool.read())
        self.spool.close()
        self.spool, self._on_disk = disk, True

    def finish(self) -> None:
        self.spool.seek(0)

    def close(self) -> None:
        self.spool.close()


class PerFile:
    """Each input's rewritten text, for its output file (``outdir.destinations``); written
    only once all of them went through."""

    spool: BinaryIO | None = None  # the files are the output

    def __init__(self, pairs: list[tuple[str, Path]]) -> None:
        self._targets = [target for _, target in pairs]
        self._texts: list[list[str]] = []

    def add(self, done: StreamOutcome) -> None:
        if done.opens:
            self._texts.append([])
        self._texts[-1].append(done.outcome.text)

    def finish(self) -> None:
        from tfpolicy.files.outdir import write_outputs  # here, as destinations

        write_outputs([(target, "".join(text).encode("utf-8"))
                       for target, text in zip(self._targets, self._texts, strict=True)])


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
    try:
        fd, _ = open_regular(file)  # a FIFO named would block the stream for ever
    except OSError as exc:
        raise TfpolicyError(f"cannot read: {exc.strerror}", file=file) from None
    with os.fdopen(fd, "rb") as handle:
        yield handle
