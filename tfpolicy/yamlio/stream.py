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


class _Split:
    """The state of the split between pieces of text."""

    def __init__(self, start: int) -> None:
        self.chunk: list[str] = []  # the current document's text
        self.pending: list[str] = []  # directive lines waiting for their "---"
        self.content = False
        self.start = start
        self.emitted = False

    def lines(self, run: str) -> None:
        """Ordinary lines: no directive, no marker."""
        self.chunk.extend(self.pending)
        self.content = self.content or bool(self.pending) or bool(_CONTENT_LINE.search(run))
        self.pending = []
        self.chunk.append(run)

    def special(self, line: str) -> Iterator[RawDoc]:
        if line.startswith("%"):
            self.pending.append(line)
            return
        if _is_marker(line, "---") and self.content:
            yield self.cut()
        self.chunk.extend(self.pending)
        self.content = self.content or bool(self.pending) or line.startswith("---") \
            or bool(_CONTENT_LINE.match(line))
        self.pending = []
        self.chunk.append(line)
        if _is_marker(line, "..."):
            yield self.cut()

    def cut(self) -> RawDoc:
        text = "".join(self.chunk)
        doc = RawDoc(text, self.start)
        self.start += text.count("\n")
        self.chunk, self.content, self.emitted = [], False, True
        return doc

    def end(self) -> Iterator[RawDoc]:
        self.chunk.extend(self.pending)
        if self.chunk or not self.emitted:
            yield RawDoc("".join(self.chunk), self.start)


def iter_documents(pieces: Iterable[str], start: int = 0) -> Iterator[RawDoc]:
    """Documents of a stream given in pieces of whole lines (the last may lack its end),
    its first line being line ``start`` of the file.

    Joined, the documents give the stream back. Only lines opening with
    ``%``, ``---`` or ``...`` are looked at one by one.
    """
    split = _Split(start)
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


def split_documents(text: str) -> list[RawDoc]:
    """Documents of a text; only ``\n`` ends a line (``str.splitlines`` knows too many)."""
    return list(iter_documents([text]))


def decode(data: bytes, file: str) -> str:
    """UTF-8 text, or an error naming the line of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _not_utf8(data[exc.start], file, line) from None
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
            raise _not_utf8(self.data[exc.start], file, line) from None
        return list(iter_documents([text.removeprefix(BOM) if self.first else text], self.line))


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


def _not_utf8(byte: int, file: str, line: int) -> TfpolicyError:
    return TfpolicyError(f"not UTF-8: byte 0x{byte:02x} cannot be decoded", file=file, line=line)


def newline_of(text: str) -> str:
    """The line ending a document uses, so inserted lines match it (CRLF files stay CRLF).

    A lone ``\r`` is a line break to YAML (and to libyaml), so a CR-only
    file gets CR-only new lines.
    """
    if "\r\n" in text:
        return "\r\n"
    return "\r" if "\r" in text and "\n" not in text else "\n"
