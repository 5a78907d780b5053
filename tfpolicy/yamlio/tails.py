"""Where a new entry goes among the comment lines around a block mapping's entries.

A comment line belongs to what it is written against, as kyaml (kpt,
kustomize) and a reader see it: one indented deeper than the line after it
ends the block above it (a foot comment); one at or left of the line after
it heads that line. A new entry must take neither kind, or it moves a
comment away from its key, and kpt, which copies every comment missing from
a function's output back onto its original key, writes it a second time.
So a new last entry goes after the foot comments deeper than itself, before
the comments that head the next line; and when a foot comment ends the
mapping at the new entry's own depth, the new entry goes first instead.
"""

from __future__ import annotations

from typing import NamedTuple

import yaml

from tfpolicy.yamlio.lines import eol, line_above, line_start


class _Line(NamedTuple):
    start: int
    indent: int  # -1 for a blank line
    comment: bool


def _lines_from(text: str, at: int) -> tuple[list[_Line], int]:
    """The blank and comment lines from ``at``, and the indent of the line after them
    (0 at the text's end: a comment closing the document is the document's)."""
    found: list[_Line] = []
    while at < len(text):
        end = eol(text, at)
        body = text[at:end].rstrip("\r\n")
        stripped = body.lstrip(" ")
        if stripped and not stripped.startswith("#"):
            return found, len(body) - len(stripped)
        found.append(_Line(at, len(body) - len(stripped) if stripped else -1, bool(stripped)))
        at = end
    return found, 0


def append_at(text: str, end: int, indent: int) -> int | None:
    """Where a new last entry at ``indent`` goes, its mapping's last entry ending at ``end``;
    ``None`` when a foot comment at its depth or left of it ends the mapping."""
    lines, following = _lines_from(text, end)
    at, rest = end, lines
    for i, line in enumerate(lines):
        if line.comment and line.indent <= indent:
            rest = lines[i:]
            break
        if line.comment:
            at, rest = eol(text, line.start), lines[i + 1:]
    if any(line.comment and line.indent > following for line in rest):
        return None
    return at


def first_at(text: str, mapping: yaml.MappingNode) -> int | None:
    """The start of a block mapping's first entry, above the comment lines that head it;
    ``None`` when the entry shares its line with a ``- `` or ``?``."""
    key = mapping.value[0][0]
    start = line_start(text, key.start_mark.index)
    if text[start:key.start_mark.index].strip(" "):
        return None
    return heads_from(text, start, key.start_mark.column)


def heads_from(text: str, start: int, column: int) -> int:
    """``start`` moved up over the comment lines right above it that head its line (those
    at ``column`` or left of it; a deeper one is a foot comment of the block above)."""
    while start > 0:
        above = line_above(text, start)
        line = text[above:start].rstrip("\r\n")
        stripped = line.lstrip(" ")
        if not stripped.startswith("#") or len(line) - len(stripped) > column:
            break
        start = above
    return start
