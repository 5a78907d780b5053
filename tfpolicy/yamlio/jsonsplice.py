"""Edits written into a JSON document's own text, so every other byte stays.

A JSON manifest (jsondoc.py) is edited where the edits fall: a value
replaced in its place, a member removed with the separator before it (or
after it, when it is the first), a new member added after the last one, or
where its recorded layout says it stood (the sibling it followed, its own
text), so that rollback gives compact or indented JSON back byte for byte.
New text takes the document's own style: its indentation unit, its
separators (``", "`` or ``","``, ``": "`` or ``":"``), its line ending.
What the splice does not handle (an edit inside an array's new item, two
edits over one place) gives ``None``: the caller writes the whole document
with ``json.dumps`` instead. Either way the text is read back as JSON.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from tfpolicy.edits import ENTRY, Edit, Op, apply_edits, same
from tfpolicy.records import Record

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR_END = re.compile(r'(?:-?[0-9][0-9.eE+-]*|true|false|null)')
_YAML_MISREAD = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class _Unsupported(Exception):
    """An edit the splice does not write: the whole document is written instead."""


class Node(Record):
    """A value's place: ``[start, end)``; an object's members ``(key, key start, value)``,
    an array's items."""

    start: int
    end: int
    members: list[tuple[str, int, Node]] | None = None
    items: list[Node] | None = None


class _Style(Record):
    unit: str | None  # one level of indentation; None: all on one line
    item: str  # between members: "," and what follows on one line
    key: str  # between a key and its value
    newline: str


_INDENT = re.compile(r"\n([ \t]+)\S")


def whole(text: str, edits: list[Edit], newline: str) -> str | None:
    """``text`` (one JSON object) written anew with ``edits`` applied: its leading and
    trailing blanks and its indentation kept, the rest as ``json.dumps`` writes it."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    indent = _INDENT.search(text.strip().replace("\r\n", "\n"))
    width = len(indent.group(1).expandtabs()) if indent else None
    out = json.dumps(apply_edits(data, edits), indent=width, ensure_ascii=False)
    out = _YAML_MISREAD.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    lead = text[: len(text) - len(text.lstrip())]
    return lead + out.replace("\n", newline) + text[len(text.rstrip()):]


def splice(text: str, edits: list[Edit], newline: str) -> str | None:
    """``text`` (one JSON object) with ``edits`` written in place, or ``None``."""
    inner = re.search(r"\r\n|\r|\n", text.strip())
    newline = inner.group() if inner else newline  # the document's own, not its last line's
    try:
        root, _ = _scan(text, _WS.match(text).end())  # type: ignore[union-attr]
        style = _style(text, root, newline)
        patches = _patches(text, root, style, edits)
    except (_Unsupported, ValueError, IndexError, KeyError, StopIteration):
        return None
    out, at = [], 0
    for start, end, new in sorted(patches, key=lambda p: (p[0], p[1])):
        if start < at:
            return None  # two edits over one place
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


def _scan(text: str, at: int) -> tuple[Node, int]:
    """The value at ``at`` (a JSON text already read whole by ``json``) and its end."""
    char = text[at]
    if char == '"':
        end = scanstring(text, at + 1)[1]
        return Node(at, end), end
    if char not in "[{":
        found = _SCALAR_END.match(text, at)
        if found is None:
            raise _Unsupported
        return Node(at, found.end()), found.end()
    close = "}" if char == "{" else "]"
    pos = _WS.match(text, at + 1).end()  # type: ignore[union-attr]
    members: list[tuple[str, int, Node]] = []
    items: list[Node] = []
    while text[pos] != close:
        key_start, key = pos, ""
        if char == "{":
            key, pos = scanstring(text, pos + 1)
            pos = _WS.match(text, pos).end() + 1  # type: ignore[union-attr]  # the ":"
        value, pos = _scan(text, _WS.match(text, pos).end())  # type: ignore[union-attr]
        if char == "{":
            members.append((key, key_start, value))
        else:
            items.append(value)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if char == "{":
        return Node(at, pos + 1, members=members), pos + 1
    return Node(at, pos + 1, items=items), pos + 1


def _style(text: str, root: Node, newline: str) -> _Style:
    """The document's indentation unit and separators, read from its first object that
    shows them (json.dumps' own defaults where none does)."""
    unit, item, key = None, ", ", ": "
    objects = [root]
    while objects:
        node = objects.pop(0)
        members = node.members or []
        if members:
            head = text[node.start + 1:members[0][1]]
            if "\n" in head and unit is None:
                unit = head.rsplit("\n", 1)[1][len(_line_indent(text, node.start)):]
            _, key_start, value = members[0]
            key = text[scanstring(text, key_start + 1)[1]:value.start]
            if len(members) > 1:
                item = text[members[0][2].end:members[1][1]]
                item = "," if "\n" in item else item
                break
        objects += [v for _, _, v in members if v.members]
    return _Style(unit or None, item, key, newline)


def _line_indent(text: str, at: int) -> str:
    start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
    return text[start:start + len(text[start:at]) - len(text[start:at].lstrip(" \t"))]


def _patches(text: str, root: Node, style: _Style, edits: list[Edit]
             ) -> list[tuple[int, int, str]]:
    """The edits as replacements of spans of ``text``: removals per object first (a run of
    removed members goes as one span), then values set and members added."""
    gone: dict[int, tuple[Node, set[int]]] = {}
    for edit in (e for e in edits if e.op is Op.REMOVE):
        parent, index = _member_of(root, edit)
        if index is None:
            raise _Unsupported
        gone.setdefault(id(parent), (parent, set()))[1].add(index)
    patches = [p for parent, indices in gone.values() for p in _removed(parent, indices)]
    for edit in (e for e in edits if e.op is Op.SET):
        parent, index = _member_of(root, edit)
        left = gone.get(id(parent), (parent, set()))[1]
        patches.append(_set(text, parent, index, style, edit, left))
    return patches


def _member_of(root: Node, edit: Edit) -> tuple[Node, int | None]:
    """The object or array the edit writes into, and the index of its key there."""
    parent = root
    for item in edit.path[:-1]:
        parent = _child(parent, item)
    last = edit.path[-1]
    if parent.items is not None and isinstance(last, int) and edit.op is Op.SET:
        return parent, last
    if parent.members is None or not isinstance(last, str):
        raise _Unsupported
    return parent, next((i for i, (k, _, _) in enumerate(parent.members) if k == last), None)


def _set(text: str, parent: Node, index: int | None, style: _Style, edit: Edit,
         gone: set[int]) -> tuple[int, int, str]:
    if parent.items is not None:
        node = parent.items[index or 0]
        return node.start, node.end, _dump(edit.value, text, node.start, style)
    members = parent.members or []
    if index is not None:
        value = members[index][2]
        return value.start, value.end, _dump(edit.value, text, members[index][1], style)
    return _added(text, parent, style, edit, gone)


def _child(node: Node, item: Any) -> Node:
    if node.members is not None and isinstance(item, str):
        return next(v for k, _, v in node.members if k == item)
    if node.items is not None and isinstance(item, int):
        return node.items[item]
    raise _Unsupported


def _removed(parent: Node, indices: set[int]) -> list[tuple[int, int, str]]:
    """Members taken out, each run of them with the separator before it (the run that
    opens the object, with the one after it); all of them: ``{}``."""
    members = parent.members or []
    if len(indices) == len(members):
        return [(parent.start, parent.end, "{}")]
    out, ordered = [], sorted(indices)
    runs = [[ordered[0]]]
    for index in ordered[1:]:
        if index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    for run in runs:
        first, last = run[0], run[-1]
        if first == 0:
            out.append((members[0][1], members[last + 1][1], ""))
        else:
            out.append((members[first - 1][2].end, members[last][2].end, ""))
    return out


def _added(text: str, parent: Node, style: _Style, edit: Edit,
           gone: set[int]) -> tuple[int, int, str]:
    """A new member: after the sibling its layout names (first for none), else last, among
    the members that stay."""
    members = [m for i, m in enumerate(parent.members or []) if i not in gone]
    key = edit.path[-1]
    if not isinstance(key, str):
        raise _Unsupported
    if not parent.members:
        return parent.start, parent.end, _dump({key: edit.value}, text, parent.start, style)
    if not members:
        raise _Unsupported  # every member goes: the object is written whole instead
    gap = _gap(text, parent, style)
    layout = edit.layout
    member = _member(text, members[0][1], key, edit.value, style)
    if layout is not None and layout.kind == ENTRY and _fits(layout.text, key, edit.value):
        member = layout.text.replace("\r\n", "\n").replace("\n", style.newline)
        if layout.after is None:
            return members[0][1], members[0][1], member + "," + gap
        after = next((v for k, _, v in members if k == layout.after), None)
        if after is not None:
            return after.end, after.end, "," + gap + member
    last = members[-1][2]
    return last.end, last.end, "," + gap + member


def _gap(text: str, parent: Node, style: _Style) -> str:
    """What stands between a member's comma and the next member in ``parent``."""
    members = parent.members or []
    if len(members) > 1:
        return text[members[0][2].end + 1:members[1][1]]
    head = text[parent.start + 1:members[0][1]]
    return head if "\n" in head or "\r" in head else style.item[1:]


def _member(text: str, at: int, key: str, value: Any, style: _Style) -> str:
    return json.dumps(key, ensure_ascii=False) + style.key + _dump(value, text, at, style)


def _dump(value: Any, text: str, at: int, style: _Style) -> str:
    """``value`` as the document writes JSON, nested below the line holding ``at``."""
    item = style.item if style.unit is None else ","
    dumped = json.dumps(value, ensure_ascii=False, indent=style.unit, separators=(item, style.key))
    dumped = _YAML_MISREAD.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
    return dumped.replace("\n", style.newline + _line_indent(text, at))


def _fits(text: str, key: str, value: Any) -> bool:
    """A recorded member reads as exactly ``{key: value}``."""
    try:
        return same(json.loads("{" + text + "}"), {key: value})
    except ValueError:
        return False
