"""Splice edits into a document's original text, so everything else keeps its bytes.

Handles block-style mappings, which is what rendered manifests are made of.
Anything else (flow collections on the path, a key sharing its line with a
sequence dash) returns ``None`` and the caller falls back to the
round-trip emitter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from tfpolicy.edits import Edit, Op, Path
from tfpolicy.yamlio.emit import block, scalar


@dataclass(frozen=True, slots=True)
class _Patch:
    start: int
    end: int
    text: str


class _Unsupported(Exception):
    pass


def splice(text: str, root: yaml.Node, edits: list[Edit], newline: str) -> str | None:
    """``text`` with ``edits`` applied, or ``None`` when its layout needs the fallback."""
    step = indent_step(root)
    try:
        patches = [p for edit in edits for p in _patch(text, root, edit, step, newline)]
    except _Unsupported:
        return None
    return _join(text, patches, newline)


def _join(text: str, patches: list[_Patch], newline: str) -> str | None:
    out, pos = [], 0
    for patch in sorted(patches, key=lambda p: p.start):  # stable: edit order kept at a point
        if patch.start < pos:
            return None
        out.append(text[pos:patch.start])
        if patch.start == len(text) and text and not text.endswith("\n"):
            out.append(newline)
        out.append(patch.text)
        pos = patch.end
    out.append(text[pos:])
    return "".join(out)


def _patch(text: str, root: yaml.Node, edit: Edit, step: int, newline: str) -> list[_Patch]:
    parent = _walk(root, edit.path[:-1])
    key = edit.path[-1]
    if not isinstance(parent, yaml.MappingNode) or parent.flow_style or not parent.value:
        raise _Unsupported
    pair = next(((k, v) for k, v in parent.value if k.value == key), None)
    if edit.op is Op.REMOVE:
        if pair is None:
            raise _Unsupported
        return [_remove(text, *pair)]
    if pair is not None and _is_null(pair[1]) and isinstance(edit.value, dict) and edit.value:
        return _fill(text, *pair, edit.value, step, newline)
    if pair is not None:
        return [_replace(pair[1], edit.value)]
    indent = parent.value[0][0].start_mark.column
    at = _after(text, parent.value[-1][1])
    return [_Patch(at, at, block(key, edit.value, indent, step, newline))]


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _fill(text: str, key: yaml.Node, value: yaml.Node, new: dict[str, Any], step: int,
          newline: str) -> list[_Patch]:
    """``annotations:`` left empty (Helm renders that) becomes a block mapping under it."""
    if value.start_mark.line != key.start_mark.line:
        raise _Unsupported
    indent = key.start_mark.column + step
    entries = "".join(block(k, v, indent, step, newline) for k, v in new.items())
    at = _after(text, value)
    ending = "" if text.endswith("\n", 0, at) else newline
    return [_Patch(value.start_mark.index, value.end_mark.index, ""),
            _Patch(at, at, ending + entries)]


def _walk(root: yaml.Node, path: Path) -> yaml.Node:
    node: yaml.Node | None = root
    for item in path:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == item), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(item, int):
            node = node.value[item]
        else:
            node = None
        if node is None:
            raise _Unsupported
    assert node is not None
    return node


def _remove(text: str, key: yaml.Node, value: yaml.Node) -> _Patch:
    start = text.rfind("\n", 0, key.start_mark.index) + 1
    if text[start:key.start_mark.index].strip(" "):
        raise _Unsupported  # the key shares its line with a "- " or "{"
    return _Patch(start, _after(text, value), "")


def _replace(value: yaml.Node, new: Any) -> _Patch:
    if not isinstance(value, yaml.ScalarNode) or isinstance(new, dict | list) or _is_null(value):
        raise _Unsupported
    if value.start_mark.line != value.end_mark.line or value.style in ("|", ">"):
        raise _Unsupported
    return _Patch(value.start_mark.index, value.end_mark.index, _styled(new, value.style))


def _styled(new: Any, style: str | None) -> str:
    """Keep the old value's quote style where it reads back the same."""
    text = scalar(new)
    if isinstance(new, str) and style == "'" and "'" not in new and text.startswith('"'):
        return f"'{new}'" if new.isprintable() and "\\" not in text else text
    return text


def _after(text: str, node: yaml.Node) -> int:
    """Where the line after ``node``'s last character begins.

    A block collection's own end mark sits on the next token, possibly lines
    later, so it is measured by its last entry instead.
    """
    while isinstance(node, yaml.CollectionNode) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    mark = node.end_mark
    if mark.column == 0 and mark.index > node.start_mark.index:
        return int(mark.index)
    newline = text.find("\n", int(mark.index))
    return len(text) if newline < 0 else newline + 1


def indent_step(root: yaml.Node) -> int:
    """The document's mapping indentation (2 unless it nests block mappings otherwise)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode) and not node.flow_style:
            for key, value in node.value:
                if isinstance(value, yaml.MappingNode) and not value.flow_style and value.value:
                    step = value.value[0][0].start_mark.column - key.start_mark.column
                    return max(1, int(step))
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return 2
