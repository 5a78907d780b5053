"""A pod's shape as the stages read it, and the way back to where its parts really are.

A kind that embeds a whole pod template is read in place. For one whose parts
live apart (:class:`tfpolicy.workloads.kinds.Shape`), the engine builds a view shaped like
a pod template — ``{metadata: {labels, annotations}, spec: {..., containers}}``
— from the real fields, the stages run on it unchanged, and :meth:`View.real`
maps each edit's path back (docs/kinds.md: one description of a change).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Edit, Op, Path, clone, diff
from tfpolicy.findings import Severity
from tfpolicy.records import Record, replace
from tfpolicy.workloads.shapes import (
    ALWAYS,
    ANY,
    FIRST,
    FIRST_ALWAYS,
    IF_MISSING,
    NUMBERED,
    Pattern,
    Shape,
    Slot,
)

_META_KEYS = ("labels", "annotations")


class Move(Record):
    """A container the view shows in place of a component that holds its ``resources`` (a
    Dynamo service): ``view`` is the container in the view, ``real`` the component, and the
    key ``shown`` of the mapping at ``section`` below it is ``named`` there."""

    view: Path
    real: Path
    section: Path
    shown: str
    named: str

    def place(self, path: Path) -> Path | None:
        """Where ``path`` of the view is, when it is below ``view``; ``None`` otherwise (the
        container itself has no place: it is the component)."""
        if path[:len(self.view)] != self.view or len(path) == len(self.view):
            return None
        rest, depth = path[len(self.view):], len(self.section)
        if rest[:depth] == self.section and len(rest) > depth and rest[depth] == self.shown:
            rest = (*self.section, self.named, *rest[depth + 1:])
        return self.real + rest

    def value(self, path: Path, value: Any) -> Any:
        """``value`` set at ``path`` of the view, its keys named as they are in the object."""
        rest = path[len(self.view):]
        depth = len(rest)
        if depth > len(self.section) or rest != self.section[:depth] \
                or not isinstance(value, Mapping):
            return value
        if depth == len(self.section):
            return {(self.named if k == self.shown else k): v for k, v in value.items()}
        key = self.section[depth]
        return {k: self.value((*path, k), v) if k == key else v for k, v in value.items()}


class View(Record):
    """One pod's template; ``meta is None``: the real template at ``path`` itself."""

    path: Path  # the template, or the shape's anchor, from the object's root
    template: Any
    meta: Path | None = None  # the mapping with the pod's labels and annotations
    spec: Path | None = None  # the mapping with its pod-level fields
    containers: tuple[Path, ...] = ()
    refused: str = ""  # why this pod is reported rather than migrated
    # ``meta`` holds nothing but labels and annotations, so one edit may set or remove it
    # whole (Argo's template metadata); an object's own metadata has its name too
    meta_alone: bool = True
    moved: Move | None = None  # a container's resources kept apart (a Dynamo service's)
    refused_rule: str = "kind-not-migrated"  # the rule, and severity, a refusal is said with
    refused_severity: Severity = Severity.WARNING

    @property
    def counted(self) -> bool:
        """Refused with a warning: a GPU request not migrated, as the counts take it (an
        error is a pod the API server refuses, not one left on the device plugin)."""
        return bool(self.refused) and self.refused_severity is Severity.WARNING

    def real(self, path: Path) -> Path | None:
        """Where a path of the view is in the object; ``None``: nowhere one edit can go."""
        if self.meta is None:
            return self.path + path
        placed = self.moved.place(path) if self.moved is not None else None
        if placed is not None:
            return placed
        if path[:1] == ("metadata",) and len(path) > 1:
            return self.meta + path[1:]
        if path == ("metadata",) and len(self.meta) > len(self.path) and self.meta_alone:
            return self.meta  # a mapping of its own, as Argo's template metadata
        if path[:2] == ("spec", "containers"):  # the list itself has no one place
            index = path[2] if len(path) > 2 else None
            if isinstance(index, int) and index < len(self.containers):
                return self.containers[index] + path[3:]
            return None
        if path[:1] == ("spec",) and len(path) > 1 and self.spec is not None:
            return self.spec + path[1:]
        return None

    def shifted(self, prefix: Path) -> View:
        """The same view, for an object embedded at ``prefix`` (a Katib trialSpec)."""
        def move(path: Path | None) -> Path | None:
            return None if path is None else prefix + path
        moved = self.moved and replace(self.moved, real=prefix + self.moved.real)
        return replace(self, path=prefix + self.path, meta=move(self.meta), spec=move(self.spec),
                       containers=tuple(prefix + c for c in self.containers), moved=moved)


def real_edits(view: View, edits: list[Edit]) -> list[Edit] | None:
    """``edits`` of the view at their real paths; ``None`` when one has no place to go."""
    out = []
    for edit in _split_metadata(view, edits):
        path = view.real(edit.path)
        if path is None:
            return None
        moved = view.moved
        if moved is not None and moved.place(edit.path) is not None and edit.op is Op.SET:
            edit = replace(edit, value=moved.value(edit.path, edit.value))
        out.append(replace(edit, path=path))
    return out


def _split_metadata(view: View, edits: list[Edit]) -> Iterator[Edit]:
    """A whole ``metadata`` set where it shares its mapping with other fields (KServe's
    component): one edit per label and annotation map instead."""
    for edit in edits:
        if edit.path != ("metadata",) or view.real(edit.path) is not None:
            yield edit
            continue
        old = view.template.get("metadata") or {}
        new = edit.value if edit.op is Op.SET and isinstance(edit.value, Mapping) else {}
        yield from diff(old, dict(new), ("metadata",))


def with_added(path: Path, template: Any, added: tuple[str, ...]) -> View:
    """A whole template whose controller adds containers ``added`` to its pods: read as a
    copy holding them too (no path: no edit), every real part mapped back in place, so an
    edit of the list itself or of an added container has nowhere to go."""
    spec = template.get("spec") if isinstance(template.get("spec"), Mapping) else {}
    real = _as_list(spec.get("containers")) if isinstance(spec, Mapping) else []
    copied = {**template, "spec": {**spec, "containers": _with_added(real, added)}}
    return View(path, copied, (*path, "metadata"), (*path, "spec"),
                tuple((*path, "spec", "containers", i) for i in range(len(real))))


def _with_added(items: list[Any], added: tuple[str, ...]) -> list[Any]:
    """``items`` and, after them, each container the controller adds that they lack (a
    name only: no path, so no edit reaches it)."""
    names = {c.get("name") for c in items if isinstance(c, Mapping)}
    return [*items, *({"name": name} for name in added if name not in names)]


def shape_view(obj: Mapping[str, Any], anchor: Path, shape: Shape) -> View:
    """The view of the pod whose parts ``shape`` names, under the component at ``anchor``."""
    node = _at(obj, anchor)
    meta = _at(node, shape.meta)
    shared = _at(node, shape.shared) if shape.shared is not None else None
    spec_node = _at(node, shape.spec) if shape.spec is not None else None
    paths, items = _containers(obj, anchor, shape)
    if isinstance(shared, Mapping):  # refused, but its GPUs are still seen and reported
        items += [c for c in _as_list(shared.get("containers")) if isinstance(c, Mapping)]
    items = _with_added(items, shape.added)
    template: dict[str, Any] = {}
    if isinstance(meta, Mapping):
        template["metadata"] = {k: clone(meta[k]) for k in _META_KEYS if k in meta}
    skip = {"containers", *_META_KEYS, *(_slot(s).pattern[0] for s in shape.containers)}
    spec = {k: clone(v) for k, v in spec_node.items()
            if k not in skip} if isinstance(spec_node, Mapping) else {}
    template["spec"] = {**spec, "containers": items}
    alone = not isinstance(meta, Mapping) or set(meta) <= set(_META_KEYS)
    return View(anchor, template, anchor + shape.meta,
                None if shape.spec is None else anchor + shape.spec, tuple(paths),
                shape.why if isinstance(shared, Mapping) else "", alone)


def _containers(obj: Mapping[str, Any], anchor: Path,
                shape: Shape) -> tuple[list[Path], list[Any]]:
    """Each slot's containers, named as their controller names them in the pod."""
    slots = [_slot(s) for s in shape.containers]
    found = [[(path, clone(dict(_at(obj, path))))
              for path in expand(obj, (*anchor, *slot.pattern))
              if isinstance(_at(obj, path), Mapping)] for slot in slots]
    spec = _at(obj, anchor + shape.spec) if shape.spec is not None else None
    inits = _as_list(spec.get("initContainers")) if isinstance(spec, Mapping) else []
    taken = {c.get("name") for group in found for _, c in group}
    taken |= {c.get("name") for c in inits if isinstance(c, Mapping)}
    total = sum(len(group) for group in found)
    for slot, group in zip(slots, found, strict=True):
        if slot.name:
            _NAMING[slot.rule]([c for _, c in group], slot.name, taken, total - len(group))
    return [p for group in found for p, _ in group], [c for group in found for _, c in group]


def _slot(slot: Slot | tuple[Pattern, str]) -> Slot:
    return slot if isinstance(slot, Slot) else Slot(*slot)


_Items = list[dict[str, Any]]


def _if_missing(items: _Items, name: str, taken: set[Any], others: int) -> None:
    for item in items:
        item["name"] = item.get("name") or name


def _always(items: _Items, name: str, taken: set[Any], others: int) -> None:
    for item in items:
        item["name"] = name


def _first(items: _Items, name: str, taken: set[Any], others: int) -> None:
    if items and not others and (len(items) == 1 or not items[0].get("name")):
        items[0]["name"] = name


def _first_always(items: _Items, name: str, taken: set[Any], others: int) -> None:
    if not others:
        _always(items[:1], name, taken, others)


def _numbered(items: _Items, name: str, taken: set[Any], others: int) -> None:
    """Knative's rule: the name alone, else ``name-N``, N counting up past names in use."""
    numbers = (f"{name}-{n}" for n in itertools.count())
    for item in items:
        if not item.get("name"):
            alone = len(items) == 1 and name not in taken
            item["name"] = name if alone else next(n for n in numbers if n not in taken)


_NAMING: dict[str, Callable[[_Items, str, set[Any], int], None]] = {
    IF_MISSING: _if_missing, ALWAYS: _always, FIRST: _first, FIRST_ALWAYS: _first_always,
    NUMBERED: _numbered}


def expand(node: Any, pattern: Pattern, prefix: Path = ()) -> Iterator[Path]:
    """The concrete paths in ``node`` that match ``pattern`` (``*``: every key or item)."""
    if not pattern:
        yield prefix
        return
    head, rest = pattern[0], pattern[1:]
    if head == ANY:
        keys: list[Any] = (sorted(node, key=str) if isinstance(node, Mapping)
                           else list(range(len(node))) if isinstance(node, list) else [])
        for key in keys:
            yield from expand(node[key], rest, (*prefix, key))
    elif _has(node, head):
        yield from expand(node[head], rest, (*prefix, head))


def _has(node: Any, key: str | int) -> bool:
    if isinstance(node, Mapping):
        return key in node
    return isinstance(node, list) and isinstance(key, int) and key < len(node)


def _at(node: Any, path: Pattern) -> Any:
    """The value at ``path``, or ``None`` where a step is missing."""
    for item in path:
        if not _has(node, item):
            return None
        node = node[item]
    return node


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
