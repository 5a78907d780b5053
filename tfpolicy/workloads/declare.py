"""A ready-to-paste ``podTemplates`` declaration for a GPU request in a kind tfpolicy does
not know, guessed from the object's shape (docs/kinds.md, "Declaring a new kind")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import Path

_KINDS_DOC = "docs/kinds.md"
_SIMPLE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def declaration(obj: Mapping[str, Any], path: Path) -> str:
    """A ready-to-paste ``podTemplates`` entry for the pod around ``path``: the template
    (a mapping whose ``spec`` holds the ``containers`` list the request is in), or else
    the component beside whose pod spec its labels or ``metadata`` are (``pods``); each
    list index and each key among named siblings generalised to ``*``. Or what to do."""
    head = f"podTemplates: [{{apiVersion: {obj.get('apiVersion')}, kind: {obj.get('kind')}, "
    spec = _pod_spec_of(path)
    if spec is not None and spec[-1:] == ("spec",):
        text = _pattern(obj, spec[:-1])
        if text is not None:
            return ("if its controller copies that template's labels and annotations to the "
                    f"pod, declare it: {head}paths: [\"{text}\"]}}]")
    pods = None if spec is None else _pods(obj, spec)
    if pods is not None:
        return ("if its controller copies those labels and annotations to the pod, declare "
                f"it: {head}pods: [{pods}]}}]")
    return (f"its containers are in no pod template (a spec with containers); declare "
            f"where its controller takes the pod from with podTemplates pods ({_KINDS_DOC})")


def _pod_spec_of(path: Path) -> Path | None:
    """The mapping holding the ``containers`` list the request is in."""
    for at in range(len(path) - 2, 0, -1):
        if path[at] == "containers" and isinstance(path[at + 1], int):
            return path[:at]
    return None


def _pods(obj: Mapping[str, Any], spec: Path) -> str | None:
    """A ``pods`` entry when the pod spec's parent holds ``labels``/``annotations`` (or a
    ``metadata`` holding them) beside it, as Grove's cliques and Seldon's Server do."""
    if len(spec) < 2 or not isinstance(spec[-1], str) or not _SIMPLE_KEY.match(spec[-1]):
        return None
    parent: Any = obj
    for step in spec[:-1]:
        parent = parent[step]
    meta = parent.get("metadata") if isinstance(parent, Mapping) else None
    if isinstance(parent, Mapping) and ("labels" in parent or "annotations" in parent):
        where = ""
    elif isinstance(meta, Mapping) and ("labels" in meta or "annotations" in meta):
        where = "metadata"
    else:
        return None
    at = _pattern(obj, spec[:-1])
    if at is None:
        return None
    name = spec[-1]
    return (f"{{at: \"{at}\", metadata: \"{where}\", spec: \"{name}\", "
            f"containers: [\"{name}.containers[*]\"]}}")


def _pattern(obj: Mapping[str, Any], template: Path) -> str | None:
    """``template`` as a registry path; ``None`` when a key cannot be spelled in one."""
    parts: list[str] = []
    node: Any = obj
    for step in template:
        if isinstance(step, int):
            parts.append("[*]")
        elif not _SIMPLE_KEY.match(step):
            return None
        else:
            named = _named_items(node, step)
            parts.append(("." if parts else "") + ("*" if named else step))
        node = node[step]
    return "".join(parts) if parts else None


def _named_items(node: Any, key: str) -> bool:
    """``key`` is one of several names of like items (``services.<name>``), not a field:
    every value beside it is a mapping holding the same first key its value holds."""
    if not isinstance(node, Mapping) or len(node) < 2:
        return False
    value = node[key]
    if not isinstance(value, Mapping) or not value:
        return False
    return all(isinstance(v, Mapping) and set(v) & set(value) for v in node.values())
