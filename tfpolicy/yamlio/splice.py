"""Splice edits into a document's original text, so everything else keeps its bytes.

Handles block-style mappings, which is what rendered manifests are made of.
An edit that would pass through an alias, a key a merge key (``<<``) brings
in, or a flow collection of a document with aliases is written by writing
that one place out with its intended value (expand.py chooses it), so an
anchor and its other users keep theirs. Anything else (flow collections on
the path, a key sharing its line with a sequence dash) returns ``None`` and
the caller falls back to the round-trip emitter. Either way the caller
checks that the text reads back as intended (verify.py).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tfpolicy.edits import Edit, Op, Path, get_path
from tfpolicy.records import Record
from tfpolicy.yamlio.aliases import sharing
from tfpolicy.yamlio.emit import block, entries, flow_text, scalar
from tfpolicy.yamlio.expand import Doc, absorbed, expansions, index_of, local_collection
from tfpolicy.yamlio.flow import flow_again
from tfpolicy.yamlio.indent import indent_step
from tfpolicy.yamlio.lines import after, entry_indent, eol, line_above, line_start, unterminated
from tfpolicy.yamlio.restore import entry_again, placements, shared_text
from tfpolicy.yamlio.spans import (
    ALIAS,
    Unsupported,
    dash_span,
    entry_end,
    entry_span,
    item_token,
    on_dash_line,
    walk,
)
from tfpolicy.yamlio.tails import append_at, first_at, heads_from


class _Patch(Record):
    start: int
    end: int
    text: str
    depth: int = 0  # an insertion's indent: deeper ones go first at the same point
    rank: int = 1  # then, at one point and depth: labels before annotations


def splice(text: str, root: yaml.Node, edits: list[Edit], newline: str,
           intended: Any = None) -> str | None:
    """``text`` with ``edits`` applied, or ``None`` when its layout needs the fallback.

    ``intended`` is the whole document's data after the edits: what an
    expanded alias or merged key is written out as.
    """
    put_back = {e.path: e.layout for e in edits if e.layout is not None and e.layout.placed}
    open_end = _open_end(text)
    if open_end:  # spliced as if its last line ended, which it will not again
        text += newline
    doc = Doc(text, root, indent_step(root), newline, sharing(root, text), put_back, open_end)
    try:
        expand = expansions(doc, edits)
        kept = [e for e in edits if not any(absorbed(e, q) for q in expand)]
        patches = [p for q in sorted(expand, key=repr) for p in _expand(doc, q, intended)]
        placed = placements(doc, kept)
        for i, edit in enumerate(kept):
            patches += [_put_back(*placed[i])] if i in placed else _patch(doc, edit)
    except Unsupported:
        return None
    joined = _join(text, patches)
    return unterminated(joined) if open_end and joined is not None else joined


def _put_back(at: int, text: str, depth: int, rank: int) -> _Patch:
    return _Patch(at, at, text, depth, rank)


def _join(text: str, patches: list[_Patch]) -> str | None:
    out, pos = [], 0
    for patch in sorted(patches, key=lambda p: (p.start, -p.depth, p.rank)):  # stable
        if patch.start < pos:
            return None
        out.append(text[pos:patch.start])
        out.append(patch.text)
        pos = patch.end
    out.append(text[pos:])
    return "".join(out)


def _expand(doc: Doc, path: Path, intended: Any) -> list[_Patch]:
    """The alias or merged key at ``path`` written out as its intended value."""
    if intended is None:
        raise Unsupported
    try:
        value = get_path(intended, path)
    except (KeyError, IndexError, TypeError):
        raise Unsupported from None
    local = local_collection(doc, path)
    if local is not None:
        return [_rewrite(doc, local, value, path)]
    parent = walk(doc, path[:-1])
    index = index_of(parent, path[-1])
    if index is None:
        return [_insert(doc, parent, path[-1], value)]
    if isinstance(parent, yaml.SequenceNode):
        return [_expand_item(doc, parent, index, value)]
    key = parent.value[index][0]
    token = ALIAS.match(doc.text, key.end_mark.index)
    if token is None:
        raise Unsupported
    if getattr(parent, "flow_style", False) or not (isinstance(value, dict | list) and value):
        return [_Patch(token.start(2), token.end(2), flow_text(value))]
    rest = doc.text[token.end(2):eol(doc.text, token.end(2))].strip()
    if rest and not rest.startswith("#"):
        raise Unsupported
    at = eol(doc.text, token.end(2))
    indent = entry_indent(doc.text, key) + doc.step
    lines = entries(value, indent, doc.step, doc.newline)
    return [_Patch(token.start(1), token.end(2), ""), _Patch(at, at, lines, indent)]


def _expand_item(doc: Doc, parent: yaml.SequenceNode, index: int, value: Any) -> _Patch:
    """A block sequence's ``- *name`` item written out as ``value``."""
    token = item_token(doc, parent, index)
    if parent.flow_style or not (isinstance(value, dict | list) and value):
        return _Patch(token.start(2), token.end(2), flow_text(value))
    if doc.text[token.end(2):eol(doc.text, token.end(2))].strip():
        raise Unsupported  # a comment after the alias: no place for it
    indent = token.start(2) - line_start(doc.text, token.start(2))
    lines = entries(value, indent, doc.step, doc.newline)[indent:]
    return _Patch(token.start(2), eol(doc.text, token.end(2)), lines)


def _rewrite(doc: Doc, node: yaml.CollectionNode, value: Any, path: Path) -> _Patch:
    """A collection written out again as ``value``: flow as flow, a block mapping as block."""
    if node.flow_style:
        return _Patch(node.start_mark.index, node.end_mark.index,
                      flow_again(doc, node, value, path))
    if not isinstance(node, yaml.MappingNode) or not isinstance(value, dict) or not value:
        raise Unsupported
    first = node.value[0][0]
    indent = entry_indent(doc.text, first)
    start = line_start(doc.text, first.start_mark.index) + indent
    lines = entries(value, indent, doc.step, doc.newline)[indent:]  # "- " may precede it
    return _Patch(start, entry_end(doc, node, len(node.value) - 1), lines)


def _patch(doc: Doc, edit: Edit) -> list[_Patch]:
    parent = walk(doc, edit.path[:-1])
    key = edit.path[-1]
    if not isinstance(parent, yaml.MappingNode) or parent.flow_style or not parent.value:
        raise Unsupported
    index = index_of(parent, key)
    if edit.op is Op.REMOVE:
        if index is None:
            raise Unsupported
        return [_remove(doc, parent, index)]
    if index is None:
        return [_insert(doc, parent, key, edit.value)]
    shared = shared_text(doc, edit)
    if shared is not None:  # an alias or merged key written out: the user's text again
        return [_Patch(*entry_span(doc, parent, index), shared)]
    again = entry_again(doc, parent, index, edit)
    if again is not None:  # the user's value back: their line again
        return [_Patch(*again)]
    pair = parent.value[index]
    if _is_null(pair[1]) and isinstance(edit.value, dict) and edit.value:
        return _fill(doc, pair[0], pair[1], edit.value)
    if isinstance(pair[1], yaml.CollectionNode) and not pair[1].flow_style \
            and not isinstance(edit.value, dict | list):
        return [_collapse(doc, parent, index, scalar(edit.value))]
    return [_replace(pair[1], edit.value)]


def _collapse(doc: Doc, parent: yaml.MappingNode, index: int, text: str) -> _Patch:
    """A block collection's entry given a scalar (``annotations:`` back to null)."""
    key = parent.value[index][0]
    colon = _COLON.match(doc.text, key.end_mark.index)
    if colon is None or doc.shared.is_alias(parent, index):
        raise Unsupported
    end = entry_end(doc, parent, index)
    rest = doc.text[colon.end():eol(doc.text, colon.end())]
    comment = rest if rest.lstrip(" ").startswith("#") else doc.newline
    return _Patch(colon.end(), end, (f" {text}" if text else "") + comment)


_COLON = re.compile(r"[ \t]*:")

# Where a person writes a new key: before the first of these siblings the mapping has
# (a pod template's metadata before its spec, labels before annotations), else last.
_BEFORE = {"metadata": ("spec",), "labels": ("annotations",)}
_RANK = {"labels": 0}
# tfpolicy's record (tfpolicy.stages.keys.RECORD) is the last annotation a stage writes:
# a key added beside it later goes before it, so that a stage run again on its own
# output, after another stage, writes the bytes its first run wrote.
_TRAILER = "tfpolicy.dev/original"


def _insert(doc: Doc, parent: yaml.Node, key: Any, value: Any) -> _Patch:
    """A new ``key: value`` where a person would write it, indented like the first entry."""
    if not isinstance(parent, yaml.MappingNode) or parent.flow_style or not parent.value:
        raise Unsupported
    indent = entry_indent(doc.text, parent.value[0][0])
    at = _before(doc, parent, key)
    if at is None:
        at = _last(doc, parent, indent)
    text = block(key, _labels_first(value), indent, doc.step, doc.newline)
    return _Patch(at, at, text, indent, _RANK.get(key, 1) if isinstance(key, str) else 1)


def _before(doc: Doc, parent: yaml.MappingNode, key: Any) -> int | None:
    """The start of the line of the sibling ``key`` goes before (the comments heading it
    stay with it), or ``None`` to append."""
    names = _BEFORE.get(key, ()) if isinstance(key, str) else ()
    if isinstance(key, str) and not names and key != _TRAILER:
        names = (_TRAILER,)
    found = [i for i in (index_of(parent, name) for name in names) if i is not None]
    if not found:
        return None
    sibling = parent.value[min(found)][0]
    start = line_start(doc.text, sibling.start_mark.index)
    if doc.text[start:sibling.start_mark.index].strip(" "):
        return None  # it shares its line with a "- " or "?": append instead
    return heads_from(doc.text, start, sibling.start_mark.column)


def _last(doc: Doc, parent: yaml.MappingNode, indent: int) -> int:
    """Where a new last entry goes (tails.py); first when a foot comment ends the mapping."""
    end = entry_end(doc, parent, len(parent.value) - 1)
    at = append_at(doc.text, end, indent)
    if at is None:
        at = first_at(doc.text, parent)
    return end if at is None else at


def _labels_first(value: Any) -> Any:
    """A new metadata mapping writes its labels before its annotations."""
    if not (isinstance(value, dict) and "labels" in value and "annotations" in value):
        return value
    keys = list(value)
    if keys.index("labels") < keys.index("annotations"):
        return value
    keys.remove("labels")
    keys.insert(keys.index("annotations"), "labels")
    return {k: value[k] for k in keys}


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _fill(doc: Doc, key: yaml.Node, value: yaml.Node, new: dict[str, Any]) -> list[_Patch]:
    """``annotations:`` left empty (Helm renders that) becomes a block mapping under it."""
    if value.start_mark.line != key.start_mark.line or value.start_mark.index < key.end_mark.index:
        raise Unsupported
    indent = entry_indent(doc.text, key) + doc.step
    lines = entries(new, indent, doc.step, doc.newline)
    at = after(doc.text, value)
    ending = "" if doc.text.endswith(("\n", "\r"), 0, at) else doc.newline
    return [_Patch(value.start_mark.index, value.end_mark.index, ""),
            _Patch(at, at, ending + lines, indent)]


def _remove(doc: Doc, parent: yaml.Node, index: int) -> _Patch:
    if on_dash_line(doc, parent, index):
        return _Patch(*dash_span(doc, parent), "")
    start, end = entry_span(doc, parent, index)
    if doc.open_end and end == len(doc.text):  # blank lines above would end the file
        while start > 0 and not doc.text[line_above(doc.text, start):start].strip():
            start = line_above(doc.text, start)
    return _Patch(start, end, "")


def _open_end(text: str) -> bool:
    """The text's last line has no line break (the file's last document, unterminated)."""
    return bool(text) and not text.endswith(("\n", "\r"))


def _replace(value: yaml.Node, new: Any) -> _Patch:
    if not isinstance(value, yaml.ScalarNode) or isinstance(new, dict | list) or _is_null(value):
        raise Unsupported
    if value.start_mark.line != value.end_mark.line or value.style in ("|", ">"):
        raise Unsupported
    return _Patch(value.start_mark.index, value.end_mark.index, _styled(new, value.style))


def _styled(new: Any, style: str | None) -> str:
    """Keep the old value's quote style where it reads back the same."""
    text = scalar(new)
    if isinstance(new, str) and style == "'" and "'" not in new and text.startswith('"'):
        return f"'{new}'" if new.isprintable() and "\\" not in text else text
    return text

