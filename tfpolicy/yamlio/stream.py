"""Bytes in, documents out: strict UTF-8 and a textual split of a YAML stream.

Splitting on the ``---``/``...`` marker lines is exact: YAML forbids those
markers at column 0 inside any scalar (the spec's c-forbidden), so a
document that no policy can touch is passed on as its original text
without ever being parsed. The split works line by line, so a stream of any
length is read in memory proportional to its largest document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from tfpolicy.errors import TfpolicyError
from tfpolicy.records import Record
from tfpolicy.yamlio import boundaries

BOM = "\ufeff"


class RawDoc(Record):
    """One document's original text (its leading comments and ``---`` line included)."""

    text: str
    line: int  # 0-based line of the chunk's first character in the file


def _is_marker(line: str, marker: str) -> bool:
    return line.startswith(marker) and (len(line) == 3 or line[3] in " \t\r\n")


# Lines the split must look at one by one; every other line only asks "any content?".
# Searched after a literal line break, which the regex engine finds at memchr speed (a
# MULTILINE "^" is tried at every character: six times slower on the bench corpus); the
# line's own break is not taken, so the line after it can match in turn.
_SPECIAL = re.compile(r"(?:%|---|\.\.\.)[^\n]*")
_SPECIAL_AFTER_BREAK = re.compile(r"\n((?:%|---|\.\.\.)[^\n]*)")
_CONTENT_LINE = re.compile(r"^[ \t]*[^ \t\r\n#]", re.MULTILINE)
_AFTER_MARKER = re.compile(r"[ \t]*[^ \t\r\n#]")  # content on a "---" line, after the marker
# In a document with no content (comments, blank lines, markers), which no one parses: a
# tab or a character beyond printable ASCII, which libyaml may refuse (a tab-only line, a
# control character) or read as a line break (NEL in a comment). libyaml says.
_BLANK_OR_ODD = re.compile(r"[^\n -~]")


class _Split:
    """The state of the split between pieces of text."""

    def __init__(self, start: int, file: str, context: str) -> None:
        self.chunk: list[str] = []  # the current document's text
        self.pending: list[str] = []  # directive lines waiting for their "---"
        self.content = False
        self.start = start
        self.emitted = False
        self.file, self.context = file, context  # what the stream is before this document
        self.body = False  # a line of content, not a marker, seen in this document
        self.unusual = False  # something the stream has to say about it (boundaries.py)

    def lines(self, run: str) -> None:
        """Ordinary lines: no directive, no marker. Comment and blank lines after a
        directive wait with it for the "---" it needs."""
        found = None if self.body and not self.pending else _CONTENT_LINE.search(run)
        if self.pending and found is None:
            self.pending.append(run)
            return
        self._flush()
        if found is not None and not self.body:
            self._body(indented=found.group()[:1] in (" ", "\t"))
        self.content = self.content or self.body
        self.chunk.append(run)

    def _body(self, *, indented: bool) -> None:
        """The document's first line of content: one indented (a check that looks for a key
        at a line's start sees none), or a bare document after "...", is the stream's to
        check."""
        self.body = True
        bare = self.context == boundaries.AFTER_END and not self.content
        self.unusual = self.unusual or indented or bare

    def _flush(self) -> None:
        """Directive lines join the document they precede, which the stream then checks."""
        if self.pending:
            self.chunk.extend(self.pending)
            self.content = self.unusual = True
            self.pending = []

    def special(self, line: str) -> Iterator[RawDoc]:
        if line.startswith("%"):
            self.pending.append(line)
            return
        if _is_marker(line, "---") and self.content:
            yield self.cut(boundaries.AFTER_CONTENT)
        self._flush()
        self.content = self.content or line.startswith("---") \
            or bool(_CONTENT_LINE.match(line))
        if line.startswith("..."):
            self.unusual = True
        elif not self.body and _AFTER_MARKER.match(line, 3):
            self._body(indented=False)  # content on the "---" line
        self.chunk.append(line)
        if _is_marker(line, "..."):
            yield self.cut(boundaries.AFTER_END)

    def cut(self, after: str) -> RawDoc:
        text = "".join(self.chunk)
        doc = RawDoc(text, self.start)
        if self.unusual or (not self.body and _BLANK_OR_ODD.search(text)):
            boundaries.check(text, self.context, file=self.file, line=self.start)
        self.start += text.count("\n")
        self.chunk, self.content, self.emitted = [], False, True
        self.context, self.body, self.unusual = after, False, False
        return doc

    def end(self) -> Iterator[RawDoc]:
        self._flush()
        if self.chunk or not self.emitted:
            yield self.cut(self.context)


def iter_documents(pieces: Iterable[str], start: int = 0, *, file: str = "<stream>",
                   context: str = boundaries.START) -> Iterator[RawDoc]:
    """Documents of a stream given in pieces of whole lines (the last may lack its end),
    its first line being line ``start`` of ``file``, the stream before it ``context``
    (boundaries.py: its start, or a document it continues after).

    Joined, the documents give the stream back. Only lines opening with
    ``%``, ``---`` or ``...`` are looked at one by one; a document the stream
    has something to say about (a directive, an end marker, all its content
    indented) is checked in the stream's context (boundaries.py).
    """
    split = _Split(start, file, context)
    for piece in pieces:
        at = 0
        for start, end in _specials(piece):
            if start > at:
                split.lines(piece[at:start])
            yield from split.special(piece[start:end])
            at = end
        if at < len(piece):
            split.lines(piece[at:])
    yield from split.end()


def _specials(piece: str) -> Iterator[tuple[int, int]]:
    """Where each line opening with ``%``, ``---`` or ``...`` starts and ends (its line
    break included) in a piece of whole lines."""
    first = _SPECIAL.match(piece)
    if first is not None:
        yield 0, first.end() + piece.startswith("\n", first.end())
    for found in _SPECIAL_AFTER_BREAK.finditer(piece):
        end = found.end()
        yield found.start(1), end + piece.startswith("\n", end)


def split_documents(text: str, file: str = "<stream>") -> list[RawDoc]:
    """Documents of a text; only ``\n`` ends a line (``str.splitlines`` knows too many)."""
    return list(iter_documents([text], file=file))


def decode(data: bytes, file: str) -> str:
    """UTF-8 text, or an error naming the line of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _not_utf8(data, exc.start, file, line) from None
    return text.removeprefix(BOM)


class Piece(Record):
    """Whole documents of a stream, as read: undecoded, so a worker process decodes them."""

    data: bytes
    line: int  # 0-based line of its first byte in the file
    first: bool  # the stream's start: a byte order mark there is dropped

    def documents(self, file: str) -> list[RawDoc]:
        """Its documents, strictly UTF-8; they are the stream's own documents, at its lines."""
        try:
            text = self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = self.line + self.data.count(b"\n", 0, exc.start) + 1
            raise _not_utf8(self.data, exc.start, file, line, first=self.first) from None
        context = boundaries.START if self.first else boundaries.AFTER_CONTENT
        return list(iter_documents([text.removeprefix(BOM) if self.first else text], self.line,
                                   file=file, context=context))


_BLOCK = 1 << 20
# A "---" line, which starts a new document for sure when the line before it holds content
# (and is no directive, marker or byte order mark): then the split cuts there whatever came
# before, and starts afresh, as it does at the start of a stream.
_MARKER_LINE = re.compile(rb"\n---(?:[ \t\r\n])")
_CONTENT_BYTES = re.compile(rb"[ \t]*[^ \t\r\n#]")
_NOT_CONTENT = (b"%", b"---", b"...", BOM.encode())


def read_pieces(stream: BinaryIO, size: int) -> Iterator[Piece]:
    """A binary stream in pieces of whole documents of ``size`` bytes or a little more
    (one piece for a stream with no place to cut), read in blocks of 1 MiB.

    Cutting only before a ``---`` line that surely opens a document makes each
    piece's documents exactly the stream's (``Piece.documents``), so pieces can
    go their separate ways; bytes are cut at a line break, never inside a
    character.
    """
    buffer = bytearray()
    line, first, searched = 0, True, 0
    while True:
        block = stream.read(_BLOCK)
        buffer += block
        while len(buffer) >= size:
            cut, searched = _cut(buffer, max(size, searched))
            if cut < 0:
                break
            piece = bytes(buffer[:cut])
            del buffer[:cut]
            searched = 0
            yield Piece(piece, line, first)
            line += piece.count(b"\n")
            first = False
        if not block:
            if buffer or first:
                yield Piece(bytes(buffer), line, first)
            return


def _cut(buffer: bytearray, start: int) -> tuple[int, int]:
    """Where the first ``---`` line from ``start - 1`` on that surely opens a document
    starts (-1 for none yet), and where the next search may start."""
    for found in _MARKER_LINE.finditer(buffer, start - 1):
        at = found.start() + 1
        before = buffer.rfind(b"\n", 0, at - 1) + 1
        previous = bytes(buffer[before:at - 1])
        if _CONTENT_BYTES.match(previous) and not previous.startswith(_NOT_CONTENT):
            return at, at
    return -1, max(start, len(buffer) - 4)  # a marker line may still be coming in


# Byte order marks of the encodings YAML allows beside UTF-8 (longest first: UTF-32 LE's
# opens as UTF-16 LE's does). Windows PowerShell 5 writes UTF-16 LE with one.
_WIDE_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
              (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"))


def _not_utf8(data: bytes, at: int, file: str, line: int, *, first: bool = True
              ) -> TfpolicyError:
    """The error for the byte at ``at`` of ``data`` that is not UTF-8; a stream that opens
    (``first``: ``data`` is its start) with a UTF-16 or UTF-32 byte order mark is named.

    Such a file is refused, not read: every host tfpolicy writes for (a stream on
    stdout, kpt's and kustomize's ResourceList, Argo CD's manifests) takes UTF-8 only,
    and a stream of documents is one encoding."""
    wide = next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)
    if first and wide is not None:
        return TfpolicyError(f"{wide} (it opens with a {wide} byte order mark): convert "
                             "to UTF-8", file=file, line=1, column=1)
    return TfpolicyError(f"not UTF-8: byte 0x{data[at]:02x} cannot be decoded", file=file,
                         line=line)


def newline_of(text: str) -> str:
    """The line ending a document uses, so inserted lines match it (CRLF files stay CRLF).

    A lone ``\r`` is a line break to YAML (and to libyaml), so a CR-only
    file gets CR-only new lines.
    """
    if "\r\n" in text:
        return "\r\n"
    return "\r" if "\r" in text and "\n" not in text else "\n"
