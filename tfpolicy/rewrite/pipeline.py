"""One file's text through the engine: ``str`` in, ``str`` out, untouched documents byte-identical.

Only documents that mention a GPU resource name (or tfpolicy's own record)
are parsed into data; the rest are kept as their original text. Every one
of those is still checked: cheaply for unrendered Helm templates, escapes
and aliases, and by rapidyaml for well-formed YAML, a mapping root and no
repeated key (``yamlio.cleared``); any doubt sends it through the full parse,
whose errors are the located exit-2 errors of any other document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache, partial

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.cohort import Scope, members
from tfpolicy.rewrite.engine import (
    Change,
    DocContext,
    Locate,
    PolicySet,
    canary_scope,
    plan_document,
    with_cohort,
)
from tfpolicy.stages.canary import Member
from tfpolicy.yamlio.restore import Capturer

# Where a document's content starts: a mapping key, or something else worth a real parse.
# A lone CR ends a line too, and "--- {flow: document}" has content on the marker's line.
_FIRST_CONTENT = re.compile(
    r"(?:^|(?<=\r))(?!#|%|---[ \t]*(?:#[^\r\n]*)?(?:[\r\n]|\Z)|\.\.\.)[^\s#][^\r\n]*",
    re.MULTILINE,
)
_MAPPING_START = re.compile(
    r"^(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n]*?|\"[^\"\n]*\"|'[^'\n]*'):(?:\s|$)"
)
_ALIAS = re.compile(r"[\s\[{,]\*[^\s,\]}]")
MAX_DOCUMENT_CHARS = 16 << 20
PIECE_BYTES = 1 << 18  # of a stream, handed to one worker process at a time


@dataclass(frozen=True, slots=True)
class Options:
    namespace: str = "default"
    explain: bool = False


@dataclass(frozen=True, slots=True)
class DocOutcome:
    text: str
    changed: bool
    changes: list[Change]
    findings: list[Finding]
    counted: bool = True  # took a document index (has content): findings count documents so


@dataclass(frozen=True, slots=True)
class FileResult:
    text: str
    changed: bool
    changes: list[Change]
    findings: list[Finding]


def transform(text: str, policies: PolicySet, file: str, options: Options) -> FileResult:
    """Apply ``policies`` to every document of one file's text.

    Documents are taken one at a time and only the changed ones are kept, with
    slices of ``text`` between them: a file of a million tiny documents held
    every document and its outcome at once (410 MB for 9 MB).
    """
    policies = _with_cohort(policies, [(file, list(yamlio.iter_documents([text])))], options)
    sizes: list[int] = [0]  # the length of the document last handed to the engine

    def documents() -> Iterator[yamlio.RawDoc]:
        for raw in yamlio.iter_documents([text]):
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
    """Each document's outcome, in order; a stream is processed one document at a time."""
    index = 0
    for raw, parsed in _parsed(docs, policies, file):
        if parsed is None or parsed.node is None:
            counted = parsed is None and _FIRST_CONTENT.search(raw.text) is not None
            yield DocOutcome(raw.text, False, [], [], counted)
            index += counted
            continue
        ctx = DocContext(file, index, _locator(parsed, raw.line), options.namespace,
                         options.explain, Capturer(raw.text, parsed.node, file))
        result = plan_document(parsed.data, policies, ctx)
        text = yamlio.rewrite_document(raw, parsed, result.edits, file=file)
        yield DocOutcome(text, text != raw.text, result.changes, result.findings)
        index += 1


def _parsed(docs: Iterable[yamlio.RawDoc], policies: PolicySet, file: str
            ) -> Iterator[tuple[yamlio.RawDoc, yamlio.Parsed | None]]:
    """Each document, parsed when a policy may read it (``None``: kept as its text)."""
    markers = Markers.of(policies.markers())
    for raw in docs:
        _check_size(raw, file)
        if not markers.found_in(raw.text) and _passes(raw.text, _FIRST_CONTENT.search(raw.text)):
            yield raw, None
            continue
        parsed = yamlio.parse_document(raw.text, file=file, line=raw.line)
        if parsed.node is not None:
            _require_mapping(parsed, raw, file)
        yield raw, parsed


def _with_cohort(policies: PolicySet, files: Iterable[tuple[str, Iterable[yamlio.RawDoc]]],
                 options: Options) -> PolicySet:
    """``policies`` with a canary rung's whole workloads ordered over every document of
    ``files`` (a first pass, made only when some policy sets a cap)."""
    scope = canary_scope(policies)
    if scope is None:
        return policies
    return with_cohort(policies, [m for file, docs in files
                                  for m in _members(policies, scope, options, file, docs)])


def _members(policies: PolicySet, scope: Scope, options: Options, file: str,
             docs: Iterable[yamlio.RawDoc]) -> list[Member]:
    return [m for _, parsed in _parsed(docs, policies, file)
            if parsed is not None and parsed.node is not None
            for m in members(parsed.data, scope, options.namespace)]


@dataclass(frozen=True, slots=True)
class StreamOutcome:
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
    if canary_scope(policies) is not None:  # a first pass over all of it: held in memory
        pieces = list(pieces)
        policies = _stream_cohort(policies, pieces, options, jobs)
    work = partial(_batch, policies, options)
    index = 0
    for batch in parallel.ordered(work, _batches(pieces), jobs, shared=yamlio.load_rewriter,
                                  in_worker=yamlio.silence_process):
        for file, first, outcomes in batch:
            index = 0 if first else index
            for n, outcome in enumerate(outcomes):
                shifted = _shifted(outcome, index) if index and outcome.findings else outcome
                yield StreamOutcome(file, first and n == 0, shifted)
            index += sum(o.counted for o in outcomes)


_Batch = list[tuple[str, yamlio.Piece]]


def _stream_cohort(policies: PolicySet, pieces: list[tuple[str, yamlio.Piece]],
                   options: Options, jobs: int) -> PolicySet:
    """``_with_cohort`` over every piece, spread over the workers as the rewrite is."""
    work = partial(_batch_members, policies, options)
    found = parallel.ordered(work, _batches(pieces), jobs, shared=yamlio.load_rewriter,
                             in_worker=yamlio.silence_process)
    return with_cohort(policies, [m for batch in found for m in batch])


def _batch_members(policies: PolicySet, options: Options, batch: _Batch) -> list[Member]:
    scope = canary_scope(policies)
    assert scope is not None
    return [m for file, piece in batch
            for m in _members(policies, scope, options, file, piece.documents(file))]


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
    """Each piece's outcomes; their changes, of which nothing is read, do not cross the
    pipe (pickling them cost more than the texts)."""
    return [(file, piece.first, [replace(o, changes=[]) if o.changes else o
                                 for o in transform_documents(piece.documents(file), policies,
                                                              file, options)])
            for file, piece in batch]


def _shifted(outcome: DocOutcome, offset: int) -> DocOutcome:
    """A batch's outcome with its findings' document index counted from the stream's start."""
    findings = [replace(f, index=f.index + offset) for f in outcome.findings]
    return replace(outcome, findings=findings)


@dataclass(frozen=True, slots=True)
class Markers:
    """Whether a text holds any marker: a few plain substring searches, then the full
    search only from just before the first of them it finds.

    Every marker holds one of the ``anchors`` (its part up to the first ``/``,
    or itself), so a text with no anchor holds no marker; and a marker starts
    at most ``longest`` characters before the first place its anchor occurs.
    ``str.find`` runs several times faster than the regex engine, which tries
    the alternation at every character that may open a marker.
    """

    anchors: tuple[str, ...]
    pattern: re.Pattern[str]
    longest: int

    @staticmethod
    @lru_cache(maxsize=16)
    def of(markers: tuple[str, ...]) -> Markers:
        heads = {m[:m.index("/", 1) + 1] if "/" in m[1:] else m for m in markers}
        anchors = tuple(sorted(h for h in heads if not any(o != h and o in h for o in heads)))
        longest_first = sorted(set(markers), key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(m) for m in longest_first))
        return Markers(anchors, pattern, len(longest_first[0]))

    def found_in(self, text: str) -> bool:
        start = -1
        for anchor in self.anchors:
            at = text.find(anchor)
            if at >= 0 and (start < 0 or at < start):
                start = at
        return start >= 0 and self.pattern.search(text, max(0, start - self.longest)) is not None


def _locator(parsed: yamlio.Parsed, offset: int) -> Locate:
    def locate(path: tuple[str | int, ...]) -> tuple[int, int]:
        line, column = yamlio.locate(parsed.node, path)
        return offset + line, column

    return locate


def _passes(text: str, first: re.Match[str] | None) -> bool:
    """A document no policy reads that is surely well-formed: kept as text, never constructed.

    ``first``: where its content starts (``_FIRST_CONTENT``). One with no
    content at all (comments, a bare ``---``) is an empty document, which
    kubectl skips.
    """
    if first is None:
        return True
    return not _suspicious(text, first) and yamlio.cleared(text)


def _suspicious(text: str, first: re.Match[str]) -> bool:
    """Not obviously a mapping, template syntax, or a marker that may hide: worth a parse.

    Plain and single-quoted scalars spell their text literally; only a
    double-quoted escape (``\\x2F``, ``\\u002f``, ``\\/``, a backslash at a line
    end) can make a GPU resource name the raw-text marker test misses.
    """
    if "\\" in text and '"' in text:
        return True  # an escape in double quotes can spell a marker: "nvidia.com\x2Fgpu"
    if not _MAPPING_START.match(first.group(0)):
        return True
    if "&" in text and _ALIAS.search(text):
        return True  # aliases: checked for expansion bombs
    return "{{" in text and yamlio.TEMPLATE_SYNTAX.search(text) is not None


def _require_mapping(parsed: yamlio.Parsed, raw: yamlio.RawDoc, file: str) -> None:
    if not yamlio.is_mapping_node(parsed.node):
        assert parsed.node is not None
        line = raw.line + parsed.node.start_mark.line + 1
        kind = type(parsed.data).__name__
        raise TfpolicyError(f"a manifest must be a mapping, not a {kind}", file=file, line=line)


def _check_size(raw: yamlio.RawDoc, file: str) -> None:
    if len(raw.text) > MAX_DOCUMENT_CHARS:
        raise TfpolicyError(
            f"document is larger than {MAX_DOCUMENT_CHARS >> 20} MiB; a Kubernetes object "
            "cannot be (etcd keeps objects under 1.5 MiB)", file=file, line=raw.line + 1,
        )
