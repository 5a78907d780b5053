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
from dataclasses import dataclass
from typing import BinaryIO

from tfpolicy.errors import TfpolicyError

BOM = "\ufeff"
_CONTENT = re.compile(r"[ \t]*[^ \t\r\n#]")


@dataclass(frozen=True, slots=True)
class RawDoc:
    """One document's original text (its leading comments and ``---`` line included)."""

    text: str
    line: int  # 0-based line of the chunk's first character in the file


def _is_marker(line: str, marker: str) -> bool:
    return line.startswith(marker) and (len(line) == 3 or line[3] in " \t\r\n")


def iter_documents(lines: Iterable[str]) -> Iterator[RawDoc]:
    """Documents of a stream of lines (line endings kept); joined they give the stream back."""
    chunk: list[str] = []  # the current document's lines
    pending: list[str] = []  # directive lines waiting for their "---"
    content = False
    start = 0
    for line in lines:
        if line.startswith("%"):
            pending.append(line)
            continue
        if _is_marker(line, "---") and content:
            yield RawDoc("".join(chunk), start)
            start += len(chunk)
            chunk, content = [], False
        chunk.extend(pending)
        content = content or bool(pending) or line.startswith("---") or bool(_CONTENT.match(line))
        pending = []
        chunk.append(line)
        if _is_marker(line, "..."):
            yield RawDoc("".join(chunk), start)
            start += len(chunk)
            chunk, content = [], False
    chunk.extend(pending)
    if chunk or start == 0:
        yield RawDoc("".join(chunk), start)


_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def split_documents(text: str) -> list[RawDoc]:
    """Documents of a text; only ``\n`` ends a line (``str.splitlines`` knows too many)."""
    return list(iter_documents(_LINE.findall(text)))


def decode(data: bytes, file: str) -> str:
    """UTF-8 text, or an error naming the line of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _not_utf8(data[exc.start], file, line) from None
    return text.removeprefix(BOM)


def decode_lines(stream: BinaryIO, file: str) -> Iterator[str]:
    """A binary stream's lines as text, strictly UTF-8, one line in memory at a time."""
    for number, raw in enumerate(stream, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _not_utf8(raw[exc.start], file, number) from None
        yield line.removeprefix(BOM) if number == 1 else line


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
