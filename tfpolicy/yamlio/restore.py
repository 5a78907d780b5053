"""Keeping, and giving back, the user's own text for what a stage removes or replaces.

When a stage removes an entry (a GPU resource, a HAMi annotation) or
replaces a value the user wrote, :func:`capture` reads how it was written:
the entry's lines as they stood (indentation, quoting, trailing comment and
line ending included), the sibling it followed and the comment or blank
lines between them. The record keeps that (:mod:`tfpolicy.stages.layout`),
and when the value comes back, :func:`placements` and :func:`entry_again`
put those bytes back where they were.

Every use is checked first: the recorded text must read as exactly the
value being put back, and its place must still be there (the sibling, the
same comment lines, the same indentation). Otherwise the splice writes the
value its usual way, which is equal as data.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

import yaml

from tfpolicy.edits import ENTRY, SHARED, Edit, Layout, Op, Path, same
from tfpolicy.yamlio.aliases import sharing
from tfpolicy.yamlio.construct import Loader
from tfpolicy.yamlio.expand import Doc, index_of, merges
from tfpolicy.yamlio.indent import indent_step
from tfpolicy.yamlio.lines import eol, line_start
from tfpolicy.yamlio.load import parse_with_libyaml
from tfpolicy.yamlio.rnodes import NeedsLibyaml
from tfpolicy.yamlio.spans import Unsupported, entry_end, entry_span, on_dash_line, walk
from tfpolicy.yamlio.stream import newline_of

_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s,\[\]{}]")
# An insertion placed by a layout sorts after the splice's own at one point and depth,
# and a chain of them in the order they were written.
_RANK = 10
_ON_DASH = "\0dash"  # the entry goes back first on a sequence item's "- " line


class Capturer:
    """:func:`capture` on one document, its node tree and text made ready on first use.

    ``shares`` says whether the document can hold an alias or a merge key at all, so a
    caller skips asking about every place above an edit when it cannot."""

    __slots__ = ("_doc", "_file", "_root", "_text", "shares")

    def __init__(self, text: str, root: yaml.Node | None, file: str) -> None:
        self._text, self._root, self._file = text, root, file
        self._doc: Doc | None = None
        self.shares = "*" in text or "<<" in text

    def __call__(self, path: Path, kind: str) -> Layout | None:
        if self._root is None or (kind == SHARED and not self.shares):
            return None
        try:
            if self._doc is None:
                self._doc = _doc(self._text, self._root)
            return capture(self._doc, path, kind)
        except NeedsLibyaml:  # a place rapidyaml's tree cannot give exactly
            self._doc = _doc(self._text, parse_with_libyaml(self._text, file=self._file).node)
            return capture(self._doc, path, kind)


def _doc(text: str, root: yaml.Node | None) -> Doc:
    assert root is not None
    return Doc(text, root, indent_step(root), newline_of(text), sharing(root, text))


def capture(doc: Doc, path: Path, kind: str) -> Layout | None:
    """How the entry at ``path`` is written (``ENTRY``), or the alias or merged key it is
    (``SHARED``); ``None`` where that cannot be kept."""
    if not path:
        return None  # the document itself (a Pod) stands in no mapping
    try:
        parent = walk(doc, path[:-1])
        index = index_of(parent, path[-1])
        if not isinstance(parent, yaml.MappingNode):
            return None
        if kind == SHARED:
            return _shared(doc, parent, index)
        if index is None:
            return None
        return _entry(doc, path, parent, index) if _block_mapping(parent) \
            else _flow_entry(doc, parent, index)
    except Unsupported:
        return None


def _shared(doc: Doc, parent: yaml.MappingNode, index: int | None) -> Layout | None:
    if not _block_mapping(parent):
        return None
    if index is None:
        return Layout("", SHARED) if merges(parent) else None
    if not doc.shared.is_alias(parent, index) and not _holds_shared(doc, parent.value[index][1]):
        return None
    start, end = entry_span(doc, parent, index)
    return Layout(_lf(doc.text[start:end]), SHARED)


def _holds_shared(doc: Doc, value: yaml.Node) -> bool:
    """A flow collection holding an alias or a merge key (``{<<: *lim, memory: 1Gi}``), a
    block mapping with a merge key of its own, or a block sequence of such mappings
    (``- name: a`` over ``<<: [*base, *gpu]``): written out to edit inside, it is kept
    whole (only there, not again above it), and the read back of the document says
    whether that text still reads as intended."""
    if isinstance(value, yaml.CollectionNode) and value.flow_style:
        text = doc.text[value.start_mark.index:value.end_mark.index]
        return "<<" in text or _ALIAS.search(text) is not None
    if isinstance(value, yaml.SequenceNode):
        return any(isinstance(item, yaml.MappingNode) and merges(item) for item in value.value)
    return isinstance(value, yaml.MappingNode) and merges(value)


def _block_mapping(node: yaml.Node) -> TypeGuard[yaml.MappingNode]:
    return isinstance(node, yaml.MappingNode) and not node.flow_style and bool(node.value)


def _entry(doc: Doc, path: Path, parent: yaml.MappingNode, index: int) -> Layout | None:
    if on_dash_line(doc, parent, index):  # kept as if on its own line; it goes back on the dash's
        key = parent.value[0][0]
        text = doc.text[key.start_mark.index:entry_end(doc, parent, 0)]
        return Layout(" " * key.start_mark.column + _lf(text), ENTRY, None)
    start, end = entry_span(doc, parent, index)
    if index == 0:
        after, top = None, _top(doc, path[:-1])
    else:
        previous = parent.value[index - 1][0]
        if not isinstance(previous, yaml.ScalarNode) or not isinstance(previous.value, str):
            return None
        after, top = previous.value, entry_end(doc, parent, index - 1)
    if top is None or top > start:
        return None
    return Layout(_lf(doc.text[start:end]), ENTRY, after, _breaks(doc.text[top:start]))


def _flow_entry(doc: Doc, parent: yaml.MappingNode, index: int) -> Layout | None:
    """An entry of a flow mapping: its text, and the sibling it followed (the flow mapping
    is written out again whole, in the order the data then has)."""
    key, value = parent.value[index]
    previous = parent.value[index - 1][0] if index else None
    if previous is not None and not isinstance(previous.value, str):
        return None
    after = previous.value if previous is not None else None
    return Layout(doc.text[key.start_mark.index:value.end_mark.index], ENTRY, after)


def _top(doc: Doc, path: Path) -> int | None:
    """Where the lines of the block mapping at ``path`` begin: after its key's line."""
    if not path or not isinstance(path[-1], str):
        return None
    holder = walk(doc, path[:-1])
    index = index_of(holder, path[-1])
    if index is None or not isinstance(holder, yaml.MappingNode):
        return None
    return eol(doc.text, holder.value[index][0].end_mark.index)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _breaks(text: str) -> int:
    return len(_lf(text).split("\n")) - 1


def shared_text(doc: Doc, edit: Edit) -> str | None:
    """The alias or merged key a stage wrote out, as the user wrote it (``""``: merged)."""
    layout = edit.layout
    if layout is None or layout.kind != SHARED:
        return None
    text = layout.text.replace("\n", doc.newline)
    return text if not text or text.endswith(doc.newline) else text + doc.newline


def entry_again(doc: Doc, parent: yaml.MappingNode, index: int,
                edit: Edit) -> tuple[int, int, str] | None:
    """An entry whose value comes back written as the user wrote it, line and comment
    included: its span and the recorded text, when that reads as exactly the value."""
    layout = edit.layout
    if layout is None or layout.kind != ENTRY or not _block_mapping(parent):
        return None
    key = edit.path[-1]
    if _indent(layout) != _column(doc, parent) or not _fits(layout.text, key, edit.value):
        return None
    try:
        start, end = entry_span(doc, parent, index)
    except Unsupported:
        return None
    return start, end, _text(doc, edit, end)


def placements(doc: Doc, edits: list[Edit]) -> dict[int, tuple[int, str, int, int]]:
    """For each edit putting an entry back with its layout (by position in ``edits``):
    where its recorded text goes, the text, its depth and its rank."""
    batch = {(e.path[:-1], e.path[-1]): i for i, e in enumerate(edits)
             if e.op is Op.SET and e.layout is not None and e.layout.placed}
    out: dict[int, tuple[int, str, int, int]] = {}
    done: dict[Path, int] = {}  # deepest first: an entry goes back below what goes back in
    for (parent_path, key), i in sorted(batch.items(), key=lambda item: -len(item[0][0])):
        try:
            placed = _place(doc, edits, batch, parent_path, key, set(), done)
        except Unsupported:
            continue
        if placed is not None:
            at, rank, lead = placed
            done[(*parent_path, key)] = at
            indent, text = _indent(edits[i].layout), _text(doc, edits[i], at)
            if lead == _ON_DASH:  # the first key again: the one there moves to its own line
                lead, text = "", text[indent:] + " " * indent
            out[i] = (at, lead + text, indent, rank)
    return out


def _place(doc: Doc, edits: list[Edit], batch: dict[tuple[Path, Any], int], parent_path: Path,
           key: Any, seen: set[Any], done: dict[Path, int]) -> tuple[int, int, str] | None:
    """Where the entry ``key`` goes back, with its rank in a chain and the blank lines
    to write above it; ``None``: not exactly.

    After its sibling, that is after the sibling's last line, or after what goes
    back at the end of the sibling's block (its own lines then follow it)."""
    edit = edits[batch[(parent_path, key)]]
    layout = edit.layout
    assert layout is not None
    parent = walk(doc, parent_path)
    if not _block_mapping(parent) or index_of(parent, key) is not None:
        return None
    if _indent(layout) != _column(doc, parent) or not _fits(layout.text, key, edit.value):
        return None
    rank = _RANK
    if layout.after is None and on_dash_line(doc, parent, 0):
        return parent.value[0][0].start_mark.index, rank, _ON_DASH
    if layout.after is None:
        base = _top(doc, parent_path)
    elif (index := index_of(parent, layout.after)) is not None:
        inside = (*parent_path, layout.after)
        base = max([entry_end(doc, parent, index)]
                   + [at for path, at in done.items() if path[:len(inside)] == inside])
    elif (parent_path, layout.after) in batch and layout.after not in seen:
        chained = _place(doc, edits, batch, parent_path, layout.after, {*seen, key}, done)
        if chained is None:
            return None
        base, rank = chained[0], chained[1] + 1
    else:
        return None
    if base is None:
        return None
    at = _skip(doc.text, base, layout.skip)
    if at is not None:
        return at, rank, ""
    return _at_the_end(doc, base, layout, rank)


def _at_the_end(doc: Doc, base: int, layout: Layout, rank: int) -> tuple[int, int, str] | None:
    """The file's unterminated last entry, removed with the blank lines above it (they
    would have ended the file): it goes back at the end, those blank lines written again."""
    if not doc.open_end or layout.text.endswith("\n"):
        return None
    at, left = base, layout.skip
    while left and at < len(doc.text):
        if doc.text[at:eol(doc.text, at)].strip(" \t\r\n")[:1] not in ("", "#"):
            return None
        at, left = eol(doc.text, at), left - 1
    return len(doc.text), rank, doc.newline * left


def _fits(text: str, key: Any, value: Any) -> bool:
    """The entry's text reads as ``{key: value}``; one naming an anchor elsewhere (``*name``)
    is left to the document's own read-back check."""
    if _ALIAS.search(text):
        return True
    import textwrap  # here: only an entry given back is read so

    return reads_as(textwrap.dedent(text), {key: value})


def _column(doc: Doc, parent: yaml.MappingNode) -> int:
    first = parent.value[0][0]
    return int(first.start_mark.index - line_start(doc.text, first.start_mark.index))


def _indent(layout: Layout | None) -> int:
    assert layout is not None
    first = layout.text.split("\n", 1)[0]
    return len(first) - len(first.lstrip(" "))


def _skip(text: str, at: int, lines: int) -> int | None:
    """``at`` moved down over ``lines`` comment or blank lines (``None`` if they are not)."""
    for _ in range(lines):
        if at >= len(text) or text[at:eol(text, at)].strip(" \t\r\n")[:1] not in ("", "#"):
            return None
        at = eol(text, at)
    return at


def _text(doc: Doc, edit: Edit, at: int) -> str:
    assert edit.layout is not None
    text = edit.layout.text.replace("\n", doc.newline)
    if not text.endswith(doc.newline) and (at < len(doc.text) or doc.text.endswith(("\n", "\r"))):
        text += doc.newline  # it was the document's last line, unterminated
    return text


def reads_as(text: str, value: Any) -> bool:
    """``text`` (a part of a pod template) reads as exactly ``value``, as kubectl reads it."""
    loader = Loader(text)
    try:
        return same(loader.get_single_data(), value)
    except (yaml.YAMLError, RecursionError):
        return False
    finally:
        loader.dispose()
