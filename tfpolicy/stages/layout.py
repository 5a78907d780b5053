"""The record's ``layout``: how the user wrote what a stage removed or replaced.

Rollback must give the user's bytes back, not only their data
(docs/stages.md): a GPU limit at its place among its siblings, quoted as it was, with
its trailing comment. So beside the values the record keeps, ``layout``
keeps, per place a stage changed, the user's text (read by the YAML layer,
:mod:`tfpolicy.yamlio.restore`)::

    "layout": {"spec.containers[name=vllm].resources.limits[nvidia.com/gpu]":
                 {"after": "cpu", "text": "            nvidia.com/gpu: '1'  # one card\\n"}}

The key is the place in the pod template (containers by name, a key with
dots or slashes in brackets); ``after`` is the sibling the entry followed
(``null``: it came first), ``skip`` the comment or blank lines between them
(left out when none), ``text`` the entry's lines as they stood, whether the
stage removed the entry or replaced its value; an alias or merged key a stage wrote
out in full to edit below it is ``{"shared": true, "text": …}`` (its line,
or ``""`` where a merge brought it in). Layout never decides data: the values
come from the rest of the record, and a layout that no longer fits is
ignored (the value is then written the usual way).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tfpolicy.edits import ENTRY, SHARED, Edit, Layout, Op, Path, same
from tfpolicy.records import replace
from tfpolicy.stages.record import Entries

Capture = Callable[[Path, str], Layout | None]  # at a path, the Layout of a kind
_MISSING = object()
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")
_TOKEN = re.compile(r"\.?([A-Za-z0-9_-]+)|\[([^\]]*)\]")
_NAME = "name="
_ITSELF = "."  # the pod template itself: an alias to it, written out (``template: *t``)


def settle(template: Any, original: Any, target: Any, edits: list[Edit], old: Entries,
           capture: Capture | None) -> tuple[Entries, list[Edit]]:
    """The layout section for ``target``'s record, and ``edits`` with the layout of each
    value they put back attached.

    A place the stage changes keeps the user's text: read now when the text
    there is still the user's, else carried from the old record.
    """
    section = {} if capture is None else _read(template, original, target, edits, old, capture)
    for key, entry in old.items():
        found = decode_path(original, key)
        if key not in section and found is not None and _changed(original, target, found):
            section[key] = entry
    return dict(sorted(section.items())), _attach(edits, original, target, old)


def _read(template: Any, original: Any, target: Any, edits: list[Edit], old: Entries,
          capture: Capture) -> Entries:
    """The user's text at each place the edits change, read from the document."""
    found: dict[Path, Layout] = {}
    for place, kind in (p for edit in edits for p in _places(edit)):
        layout = _captured(template, original, target, place, kind, capture)
        if layout is not None and layout.placed:
            layout = _rebased(template, original, place, layout, old)
        if layout is not None:
            found.setdefault(place, layout)
    section: Entries = {}
    for place, layout in found.items():
        key = encode_path(original, place)
        if key is not None and not _held_below(place, layout, found):
            section.setdefault(key, entry_of(layout))
    return section


def _held_below(place: Path, layout: Layout, found: dict[Path, Layout]) -> bool:
    """A mapping kept whole for the merge key it holds, where a merged key below it is kept
    too: that one gives the bytes back, and the record stays as small as it was."""
    return layout.kind == SHARED and bool(layout.text) and any(
        other.kind == SHARED and len(path) > len(place) and path[:len(place)] == place
        for path, other in found.items())


def _places(edit: Edit) -> list[tuple[Path, str]]:
    """Where an edit may change what the user wrote: an alias or merged key above it, or a
    mapping holding one, the template itself included (``template: *t``), which the text
    then writes out; and the place itself."""
    above = [(edit.path[:n], SHARED) for n in range(len(edit.path))]
    return [*above, (edit.path, ENTRY)]


def _captured(template: Any, original: Any, target: Any, path: Path, kind: str,
              capture: Capture) -> Layout | None:
    """The user's text at ``path``, when it is still theirs and the stage changes it (an
    alias or merged key is looked for first: most documents have none, and say so fast)."""
    if kind == SHARED and capture(path, kind) is None:
        return None
    if not _changed(original, target, path) or not same(_get(template, path),
                                                          _get(original, path)):
        return None
    return capture(path, kind)


def _rebased(template: Any, original: Any, path: Path, layout: Layout,
             old: Entries) -> Layout | None:
    """``layout``, read from the document, with the sibling it follows in ``original``.

    An earlier stage may have removed siblings before it (the old record puts
    them back): the entry then follows another key in the document than in
    the original, and below the comment or blank lines they had. A record
    must depend only on the original (docs/stages.md), so it names the original's
    sibling and its own lines alone, as reading the original would have
    given. ``None`` when the removed siblings' own layout does not say so.
    """
    parent, here = _get(original, path[:-1]), _get(template, path[:-1])
    if not isinstance(parent, dict) or not isinstance(here, dict):
        return None
    keys = list(parent)
    at = keys.index(path[-1])
    if layout.after == (keys[at - 1] if at else None):
        return layout
    start = keys.index(layout.after) + 1 if layout.after in keys[:at] else 0
    if layout.after is not None and start == 0:
        return None
    skip = layout.skip
    for key in keys[start:at]:
        removed = layout_of(old.get(encode_path(original, (*path[:-1], key)) or ""))
        if key in here or removed is None or not removed.placed:
            return None
        skip -= removed.skip
    return replace(layout, after=keys[at - 1], skip=skip) if skip >= 0 else None


def _changed(original: Any, target: Any, path: Path) -> bool:
    before = _get(original, path)
    if isinstance(before, dict) and type(before) is not dict:
        before = dict(before)  # the template itself, undone: its data is a plain mapping's
    return before is not _MISSING and not same(before, _get(target, path))


def _attach(edits: list[Edit], original: Any, target: Any, old: Entries) -> list[Edit]:
    """Each edit putting a value back carries its layout; the edits below an alias or a
    merged key the user had become one that writes it as they did."""
    if not old:
        return edits
    out = list(edits)
    for key, entry in old.items():
        layout, path = layout_of(entry), decode_path(target, key)
        if layout is None or layout.kind != SHARED or path is None \
                or _changed(original, target, path):
            continue
        below = [e for e in out if e.path[:len(path)] == path]
        if below:
            at = out.index(below[0])
            out = [e for e in out if e not in below]
            out.insert(at, Edit(Op.SET, path, _get(target, path), layout))
    return [_put_back(edit, original, target, old) for edit in out]


def _put_back(edit: Edit, original: Any, target: Any, old: Entries) -> Edit:
    if edit.op is not Op.SET or edit.layout is not None:
        return edit
    key = encode_path(target, edit.path)
    layout = layout_of(old.get(key)) if key is not None else None
    if layout is None or layout.kind == SHARED \
            or not same(_get(original, edit.path), edit.value):
        return edit
    return replace(edit, layout=layout)


def entry_of(layout: Layout) -> dict[str, Any]:
    if layout.kind == SHARED:
        return {"shared": True, "text": layout.text}
    entry: dict[str, Any] = {"after": layout.after}
    if layout.skip:
        entry["skip"] = layout.skip
    entry["text"] = layout.text
    return entry


def layout_of(entry: Any) -> Layout | None:
    """The layout an entry of the record names (``None`` for one tfpolicy did not write)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
        return None
    if entry.get("shared") is True:
        return Layout(entry["text"], SHARED)
    after, skip = entry.get("after"), entry.get("skip", 0)
    if not (after is None or isinstance(after, str)) or type(skip) is not int or skip < 0:
        return None
    return Layout(entry["text"], ENTRY, after, skip)


def encode_path(data: Any, path: Path) -> str | None:
    """``spec.containers[name=vllm].resources.limits[nvidia.com/gpu]``; ``None`` if unsayable;
    ``.`` for the pod template itself."""
    if not path:
        return _ITSELF
    out, node = "", data
    for item in path:
        if isinstance(item, int):
            part = _item(node, item)
        elif _PLAIN.fullmatch(item):
            part = f".{item}" if out else item
        elif "]" in item or not item:
            return None
        else:
            part = f"[{item}]"
        out += part
        try:
            node = node[item]
        except (KeyError, IndexError, TypeError):
            node = None
    return out


def _item(items: Any, index: int) -> str:
    """A list item by its ``name`` when that names one item only, else by position."""
    item = items[index] if isinstance(items, list) and index < len(items) else None
    name = item.get("name") if isinstance(item, dict) else None
    if isinstance(name, str) and "]" not in name and _named(items, name) == [index]:
        return f"[{_NAME}{name}]"
    return f"[{index}]"


def _named(items: list[Any], name: str) -> list[int]:
    return [i for i, x in enumerate(items) if isinstance(x, dict) and x.get("name") == name]


def decode_path(data: Any, text: str) -> Path | None:
    """The path ``text`` names in ``data``, read by the kind of each node on the way."""
    if text == _ITSELF:
        return ()
    path: list[str | int] = []
    node, at = data, 0
    while at < len(text):
        token = _TOKEN.match(text, at)
        if token is None or (token.group(1) and at and not text.startswith(".", at)):
            return None
        at, item = token.end(), token.group(1) or token.group(2)
        step = _step(node, item)
        if step is None:
            return None
        path.append(step)
        node = node[step]
    return tuple(path) if path else None


def _step(node: Any, item: str) -> str | int | None:
    if isinstance(node, dict):
        return item if item in node else None
    if not isinstance(node, list):
        return None
    if item.startswith(_NAME):
        found = _named(node, item[len(_NAME):])
        return found[0] if len(found) == 1 else None
    return int(item) if item.isdigit() and int(item) < len(node) else None


def reorder(data: Any, section: Entries) -> None:
    """Each entry put back where its layout says it stood among its siblings (in place)."""
    moves: dict[int, tuple[dict[str, Any], dict[Any, Any]]] = {}
    for key, entry in section.items():
        layout = layout_of(entry)
        path = decode_path(data, key) if layout is not None and layout.placed else None
        parent = _get(data, path[:-1]) if path else None
        if path and isinstance(parent, dict) and layout is not None:
            moves.setdefault(id(parent), (parent, {}))[1][path[-1]] = layout.after
    for parent, anchors in moves.values():
        _reorder(parent, anchors)


def _reorder(parent: dict[Any, Any], anchors: dict[Any, str | None]) -> None:
    keys = [k for k in parent if k not in anchors]
    for name in anchors:
        for placed in reversed(_chain(name, anchors, keys)):
            anchor = anchors[placed]
            if anchor is None:
                keys.insert(0, placed)
            else:
                keys.insert(keys.index(anchor) + 1 if anchor in keys else len(keys), placed)
    items = [(k, parent[k]) for k in keys]
    parent.clear()
    parent.update(items)


def _chain(name: Any, anchors: dict[Any, str | None], keys: list[Any]) -> list[Any]:
    """``name``, the entry it follows, the one that follows, … up to one already placed or
    seen: placed last to first. A loop, not recursion: the record is the repository's, and
    a chain of thousands of entries must not exhaust the stack."""
    chain: list[Any] = []
    seen: set[Any] = set()
    while name not in keys:
        chain.append(name)
        anchor = anchors[name]
        if anchor not in anchors or anchor in seen:
            break
        seen.add(name)
        name = anchor
    return chain


def _get(data: Any, path: Path) -> Any:
    for item in path:
        try:
            data = data[item]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return data
