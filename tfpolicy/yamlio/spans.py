"""Where a block collection's entries sit in a document's text, aliases seen.

Shared by the splice, which writes edits into the text, and by the
layout capture, which keeps what a removed entry looked like.
"""

from __future__ import annotations

import re

import yaml

from tfpolicy.edits import Path
from tfpolicy.yamlio.expand import Doc, child, index_of
from tfpolicy.yamlio.lines import after, eol, line_start

# ``key: *name`` (or ``? key`` then ``: *name``): the alias token after a key.
ALIAS = re.compile(r"\s*:(\s+)(\*[^\s,\[\]{}]+)")
_ITEM = re.compile(r"(?:\s|#[^\r\n]*)*-(\s+)(\*[^\s,\[\]{}]+)")  # "- *name", comments before
# A block scalar that keeps its trailing blank lines ("|+"): blank lines
# left behind by a removal after it would become part of its value.
_KEEP = re.compile(r"[|>][1-9]?\+|[|>]\+[1-9]?")
_BLANK_LINES = re.compile(r"(?:[ \t]*(?:\r\n|\r|\n))*")


class Unsupported(Exception):
    """A layout the splice does not write into: the caller falls back."""


def walk(doc: Doc, path: Path) -> yaml.Node:
    node = doc.root
    for item in path:
        index = index_of(node, item)
        if index is None or doc.shared.is_alias(node, index):
            raise Unsupported
        node = child(node, index)
    return node


def entry_span(doc: Doc, parent: yaml.Node, index: int) -> tuple[int, int]:
    """The lines a block mapping's entry ``index`` takes: what removing it removes."""
    key = parent.value[index][0]
    start = line_start(doc.text, key.start_mark.index)
    if doc.text[start:key.start_mark.index].strip(" ") not in ("", "?"):
        raise Unsupported  # the key shares its line with a "- " or "{"
    end = entry_end(doc, parent, index)
    if _KEEP.search(doc.text, 0, start):
        end = _BLANK_LINES.match(doc.text, end).end()  # type: ignore[union-attr]
    return start, end


def on_dash_line(doc: Doc, parent: yaml.Node, index: int) -> bool:
    """Entry ``index`` is a block sequence item's first key, on the item's ``- `` line."""
    if index != 0 or not isinstance(parent, yaml.MappingNode) or parent.flow_style:
        return False
    key = parent.value[0][0]
    return doc.text[line_start(doc.text, key.start_mark.index):key.start_mark.index].strip(" ") \
        == "-"


def dash_span(doc: Doc, parent: yaml.Node) -> tuple[int, int]:
    """What removing an item's first key takes, the key on the ``- `` line: the entry and the
    indentation of the next key, which then moves up onto the dash's line (``- image: x``).
    Only when the next key stands on the line right after the entry."""
    if len(parent.value) < 2:
        raise Unsupported
    end, second = entry_end(doc, parent, 0), parent.value[1][0]
    if doc.text[end:second.start_mark.index] != " " * second.start_mark.column \
            or second.start_mark.column != parent.value[0][0].start_mark.column:
        raise Unsupported  # a comment or blank line between them: it has no place
    return parent.value[0][0].start_mark.index, second.start_mark.index


def entry_end(doc: Doc, parent: yaml.Node, index: int) -> int:
    """Where the line after entry ``index`` of a block collection begins (aliases seen)."""
    while True:
        entry = parent.value[index]
        if doc.shared.is_alias(parent, index):
            if isinstance(parent, yaml.SequenceNode):
                return eol(doc.text, item_token(doc, parent, index).end(2))
            token = ALIAS.match(doc.text, entry[0].end_mark.index)
            if token is None:
                raise Unsupported
            return eol(doc.text, token.end(2))
        node = child(parent, index)
        if not isinstance(node, yaml.CollectionNode) or node.flow_style or not node.value:
            return after(doc.text, node)
        parent, index = node, len(node.value) - 1


def item_token(doc: Doc, parent: yaml.SequenceNode, index: int) -> re.Match[str]:
    """Where a block sequence's alias item ``- *name`` is written."""
    start = parent.start_mark.index if index == 0 else entry_end(doc, parent, index - 1)
    token = _ITEM.match(doc.text, start)
    if parent.flow_style or token is None:
        raise Unsupported
    return token
