"""One file's text through the engine: ``str`` in, ``str`` out, untouched documents byte-identical.

Only documents that mention a GPU resource name (or tfpolicy's own record)
are parsed into data; the rest are kept as their original text, checked
(:mod:`tfpolicy.rewrite.triage`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from tfpolicy import yamlio
from tfpolicy.findings import Finding
from tfpolicy.records import Record, replace
from tfpolicy.rewrite import firstpass, parallel, triage
from tfpolicy.rewrite.engine import (
    Change,
    DocContext,
    DocResult,
    Locate,
    PolicySet,
    plan_document,
)
from tfpolicy.rewrite.spool import Spool
from tfpolicy.rewrite.triage import MAX_DOCUMENT_CHARS as MAX_DOCUMENT_CHARS
from tfpolicy.rewrite.triage import Markers as Markers
from tfpolicy.yamlio.restore import Capturer

PIECE_BYTES = 1 << 18  # of a stream, handed to one worker process at a time


class Options(Record):
    namespace: str = "default"
    explain: bool = False
    changes: bool = True  # each change's record, located; apply writes the text alone


class DocOutcome(Record):
    text: str
    changed: bool
    changes: list[Change]
    findings: list[Finding]
    counted: bool = True  # took a document index (has content): findings count documents so


class FileResult(Record):
    text: str
    changed: bool
    changes: list[Change]
    findings: list[Finding]


def transform(text: str, policies: PolicySet, file: str, options: Options,
              line: int = 0) -> FileResult:
    """Apply ``policies`` to every document of one file's text (its first line is line
    ``line`` of ``file``).

    Documents are taken one at a time and only the changed ones are kept, with
    slices of ``text`` between them: else a file of a million tiny documents
    holds every document and its outcome at once (docs/speed.md).
    """
    if firstpass.pending(policies):
        docs = yamlio.iter_documents([text], line, file=file)
        policies = firstpass.over_documents(policies, [(file, docs)], options.namespace)
    sizes: list[int] = [0]  # the length of the document last handed to the engine

    def documents() -> Iterator[yamlio.RawDoc]:
        for raw in yamlio.iter_documents([text], line, file=file):
            sizes[0] = len(raw.text)
            yield raw

    pieces: list[str] = []
    changes: list[Change] = []
    findings: list[Finding] = []
    at = kept = 0  # where the next document starts; where the unchanged run since starts
    for outcome in transform_documents(documents(), policies, file, options):
        if outcome.changed:  # one outcome per document, in order
            pieces += [text[kept:at], outcome.text]
            kept = at + sizes[0]
        at += sizes[0]
        changes.extend(outcome.changes)
        findings.extend(outcome.findings)
    new_text = "".join([*pieces, text[kept:]]) if pieces else text
    return FileResult(new_text, new_text != text, changes, findings)


def transform_documents(docs: Iterable[yamlio.RawDoc], policies: PolicySet, file: str,
                        options: Options) -> Iterator[DocOutcome]:
    """Each document's outcome, in order; a stream is processed one document at a time
    (all of it first when a canary rung's workloads are not ordered yet: ``firstpass``)."""
    if firstpass.pending(policies):
        docs = list(docs)
        policies = firstpass.over_documents(policies, [(file, docs)], options.namespace)
    index = 0
    for raw, parsed in triage.parsed(docs, policies.markers(), file):
        if parsed is None or parsed.node is None:
            counted = parsed is None and triage.FIRST_CONTENT.search(raw.text) is not None
            yield DocOutcome(raw.text, False, [], [], counted)
            index += counted
            continue
        result = _planned(raw, parsed, policies, file, index, options)
        if result.edits and (sure := yamlio.confirmed(raw, parsed, file=file)) is not parsed:
            parsed = sure
            result = _planned(raw, parsed, policies, file, index, options)
        text = yamlio.rewrite_document(raw, parsed, result.edits, file=file)
        yield DocOutcome(text, text != raw.text, result.changes, result.findings)
        index += 1


def _planned(raw: yamlio.RawDoc, parsed: yamlio.Parsed, policies: PolicySet, file: str,
             index: int, options: Options) -> DocResult:
    ctx = DocContext(file, index, _locator(parsed, raw.line), options.namespace,
                     options.explain, Capturer(raw.text, parsed.node, file), options.changes)
    return plan_document(parsed.data, policies, ctx)


class StreamOutcome(Record):
    """One document's outcome in ``transform_stream``, with the file it is in."""

    file: str
    opens: bool  # the first document of its file
    outcome: DocOutcome


def transform_stream(pieces: Iterable[tuple[str, yamlio.Piece]], policies: PolicySet,
                     options: Options, jobs: int) -> Iterator[StreamOutcome]:
    """``transform_documents`` over the streams of one file or more, read in pieces
    (``yamlio.read_pieces``; a file's first piece is ``first``), without the changes
    (``apply`` writes the text and the findings).

    Runs of pieces of about ``PIECE_BYTES`` (one large piece, or the pieces of many
    small files) are decoded, split and rewritten in worker processes
    (``rewrite.parallel``). Texts, findings and the first error are the same however
    many workers there are.
    """
    if firstpass.pending(policies):  # a first pass over all of it, kept on disk meanwhile
        spool = Spool(pieces, lambda pair: len(pair[1].data))
        worth = (p for p in spool.first() if firstpass.worth(policies, p[1].data))
        policies = firstpass.over_pieces(policies, _batches(worth), options.namespace, jobs)
        pieces = spool.again()
    work = partial(_batch, policies, replace(options, changes=False))
    index = 0
    for batch in parallel.ordered(work, _batches(pieces), jobs, shared=yamlio.load_rewriter,
                                  in_worker=yamlio.silence_process):
        for file, first, outcomes in batch:
            index = 0 if first else index
            for n, outcome in enumerate(outcomes):
                shifted = _shifted(outcome, index) if index and outcome.findings else outcome
                yield StreamOutcome(file, first and n == 0, shifted)
            index += sum(o.counted for o in outcomes)


_Batch = firstpass.Batch


def _batches(pieces: Iterable[tuple[str, yamlio.Piece]]) -> Iterator[_Batch]:
    """Pieces gathered up to ``PIECE_BYTES``, so that a small file is not a task of its own."""
    batch: _Batch = []
    size = 0
    for file, piece in pieces:
        batch.append((file, piece))
        size += len(piece.data)
        if size >= PIECE_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _batch(policies: PolicySet, options: Options,
           batch: _Batch) -> list[tuple[str, bool, list[DocOutcome]]]:
    """Each piece's outcomes, made without the changes (``options.changes``), of which
    nothing is read: locating them is work, and pickling them cost more than the texts."""
    return [(file, piece.first, list(transform_documents(piece.documents(file), policies,
                                                         file, options)))
            for file, piece in batch]


def _shifted(outcome: DocOutcome, offset: int) -> DocOutcome:
    """A batch's outcome with its findings' document index counted from the stream's start."""
    findings = [replace(f, index=f.index + offset) for f in outcome.findings]
    return replace(outcome, findings=findings)


def _locator(parsed: yamlio.Parsed, offset: int) -> Locate:
    def locate(path: tuple[str | int, ...]) -> tuple[int, int]:
        line, column = yamlio.locate(parsed.node, path)
        return offset + line, column

    return locate


