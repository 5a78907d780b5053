"""Edits: the one description of a change (docs/design.md, "How the code is
shaped": transforms propose, one function applies).

A stage computes a target; :func:`diff` turns the difference into set/remove
edits at paths. The same edits are the change report, the dry run, and what
the YAML layer splices into the original text.
"""

from __future__ import annotations

import marshal
import math
from enum import Enum
from typing import Any

from tfpolicy.records import Record, field

PathItem = str | int
Path = tuple[PathItem, ...]


class Op(Enum):
    SET = "set"
    REMOVE = "remove"


ENTRY, SHARED = "entry", "shared"  # what a Layout's text is


class Layout(Record):
    """How something the user wrote was written, so that putting it back gives their bytes.

    ``kind`` says what ``text`` is: an ``ENTRY`` a stage removed or replaced
    (its lines, indentation and trailing comment included), standing after
    the sibling key ``after`` (``None``: first in its mapping) and ``skip``
    comment or blank lines below it; or a ``SHARED`` entry, an alias
    (``*name``) or a key a merge (``<<``) brought in, that a stage wrote out
    in full to edit below it (``text`` empty: it was merged).
    """

    text: str
    kind: str = ENTRY
    after: str | None = None
    skip: int = 0

    @property
    def placed(self) -> bool:
        return self.kind == ENTRY


class Edit(Record):
    op: Op
    path: Path
    value: Any = None
    # how to write it to give the user's bytes back; data-wise it changes nothing
    layout: Layout | None = field(default=None, compare=False)


def format_path(path: Path) -> str:
    """``spec.template.spec.containers[0].resources`` (the KRM result field path form)."""
    out = ""
    for item in path:
        if isinstance(item, int):
            out += f"[{item}]"
        elif "." in item or "/" in item:
            out += f"[{item}]" if out else item
        else:
            out += f".{item}" if out else item
    return out


def diff(current: Any, target: Any, path: Path = ()) -> list[Edit]:
    """Edits that turn ``current`` into ``target``: mappings by key, lists by position."""
    out: list[Edit] = []
    _diff(current, target, path, out)
    return out


def _diff(current: Any, target: Any, path: Path, out: list[Edit]) -> None:
    """Appends to ``out`` (one list, not a generator per level: a template has hundreds)."""
    if isinstance(current, dict) and isinstance(target, dict):
        for key in current:
            if key not in target:
                out.append(Edit(Op.REMOVE, (*path, key)))
        for key, value in target.items():
            if key not in current:
                out.append(Edit(Op.SET, (*path, key), value))
            elif not _surely_same(current[key], value):
                _diff(current[key], value, (*path, key), out)
    elif isinstance(current, list) and isinstance(target, list) and len(current) == len(target):
        for index, (old, new) in enumerate(zip(current, target, strict=True)):
            _diff(old, new, (*path, index), out)
    elif current != target or type(current) is not type(target):
        out.append(Edit(Op.SET, path, target))


def get_path(data: Any, path: Path) -> Any:
    for item in path:
        data = data[item]
    return data


def clone(value: Any) -> Any:
    """A copy of manifest data (mappings, lists, scalars) sharing nothing that can change.

    Cheaper than ``copy.deepcopy`` (docs/speed.md), which keeps a memo for
    shared and cyclic objects that parsed manifests never hold (aliases are
    expanded as copies when read).
    """
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def apply_edits(data: Any, edits: list[Edit]) -> Any:
    """A new value with ``edits`` applied (the data-level twin of the text splice)."""
    result = clone(data)
    for edit in edits:
        if not edit.path:
            result = clone(edit.value)
            continue
        parent = get_path(result, edit.path[:-1])
        if edit.op is Op.REMOVE:
            del parent[edit.path[-1]]
        else:
            _put(parent, edit, clone(edit.value))
    return result


def _put(parent: Any, edit: Edit, value: Any) -> None:
    """``parent[key] = value``; a key put back goes where its layout says it stood."""
    key, layout = edit.path[-1], edit.layout
    if layout is None or not layout.placed or key in parent or not isinstance(parent, dict):
        parent[key] = value
        return
    items = list(parent.items())
    at = next((i + 1 for i, (k, _) in enumerate(items) if k == layout.after),
              0 if layout.after is None else len(items))
    items.insert(at, (key, value))
    parent.clear()
    parent.update(items)


def edited(data: Any, edits: list[Edit]) -> Any:
    """``apply_edits(data, edits)`` without copying what no edit touches.

    Only the mappings and lists on an edit's path are copied; the rest is
    shared with ``data``, so the result must be read, never changed.
    """
    result = data
    for edit in edits:
        result = _edited(result, edit.path, edit)
    return result


def _edited(node: Any, path: Path, edit: Edit) -> Any:
    if not path:
        return clone(edit.value)
    head, rest = path[0], path[1:]
    out = dict(node) if isinstance(node, dict) else list(node)
    if rest:
        out[head] = _edited(node[head], rest, edit)  # type: ignore[index]
    elif edit.op is Op.REMOVE:
        del out[head]  # type: ignore[arg-type]
    else:
        _put(out, edit, clone(edit.value))
    return out


def _surely_same(a: Any, b: Any) -> bool:
    """``same(a, b)`` where it can be told in C; False is "not known", never "no".

    ``==`` compares in C but takes ``1``, ``1.0`` and ``True`` for one value;
    equal ``marshal`` bytes are equal data with its types (and key order).
    Where either says no, or the data holds what marshal cannot write, the
    caller looks inside. NaN is the same as NaN, as ``same`` has it, so an
    unchanged NaN is no edit.
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str or kind is int or kind is bool or a is None:
        return bool(a == b)
    if kind is float:
        return bool(a == b) or (math.isnan(a) and math.isnan(b))
    if (kind is dict or kind is list) and a == b:
        try:
            return marshal.dumps(a) == marshal.dumps(b)
        except ValueError:  # a value marshal cannot write
            return False
    return False


def same(a: Any, b: Any) -> bool:
    """Equal as data, types included (``1``, ``1.0``, ``True`` and ``"1"`` all differ)."""
    if _surely_same(a, b):
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str:
        return bool(a == b)
    if kind is dict:
        if a.keys() != b.keys():
            return False
        for key, value in a.items():  # noqa: SIM110 - a loop, not a generator per mapping
            if not same(value, b[key]):
                return False
        return True
    if kind is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):  # noqa: SIM110 - see above
            if not same(x, y):
                return False
        return True
    if kind is float and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)
