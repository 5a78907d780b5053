"""What every stage shares: the keys, GPU detection, and undoing tfpolicy's own writes.

Facts: reference/tensor-fusion.md §1.1–1.2 (keys), §2.2 (native resources,
summed across containers; MIG counts as one whole GPU), §9.14 (requests
default from limits, so a limit alone is a request).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.gpu import GpuResources
from tfpolicy.quantity import QuantityError, parse_quantity

TF = "tensor-fusion.ai/"
ENABLED = TF + "enabled"
OWN = "tfpolicy.dev/"
RECORD = OWN + "original-gpu-resources"
SECTIONS = ("limits", "requests")

# container name -> "limits"/"requests" -> resource name -> original YAML value
Usage = dict[str, dict[str, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Note:
    """A stage's finding, located by a path relative to the pod template."""

    severity: Severity
    rule: str
    message: str
    path: Path = ()


@dataclass(frozen=True, slots=True)
class StageContext:
    kind: str
    replicas: int | None
    gpus: GpuResources


def labels_of(template: Any) -> dict[str, Any]:
    meta = template.get("metadata") if isinstance(template, dict) else None
    value = meta.get("labels") if isinstance(meta, dict) else None
    return value if isinstance(value, dict) else {}


def annotations_of(template: Any) -> dict[str, Any]:
    meta = template.get("metadata") if isinstance(template, dict) else None
    value = meta.get("annotations") if isinstance(meta, dict) else None
    return value if isinstance(value, dict) else {}


def containers(template: Any) -> list[dict[str, Any]]:
    spec = template.get("spec") if isinstance(template, dict) else None
    items = spec.get("containers") if isinstance(spec, dict) else None
    return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []


def child_map(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a mapping; a missing or null one (Helm renders ``annotations:``)
    is replaced by a new one."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def gpu_usage(template: Any, gpus: GpuResources) -> Usage:
    """The GPU resources each container asks for, as written, in document order."""
    usage: Usage = {}
    for container in containers(template):
        resources = container.get("resources")
        for section in SECTIONS:
            entries = resources.get(section) if isinstance(resources, dict) else None
            for name, value in (entries or {}).items() if isinstance(entries, dict) else ():
                if name in gpus:
                    sections = usage.setdefault(str(container.get("name", "")), {})
                    sections.setdefault(section, {})[name] = value
    return usage


def asks_for_gpu(usage: Usage) -> bool:
    """Some container asks for a positive GPU quantity (unparsable counts: it is reported)."""
    for sections in usage.values():
        for entries in sections.values():
            for value in entries.values():
                try:
                    if parse_quantity(value) > 0:
                        return True
                except QuantityError:
                    return True
    return False


def is_gpu_workload(template: Any, gpus: GpuResources) -> bool:
    return RECORD in annotations_of(template) or asks_for_gpu(gpu_usage(template, gpus))


def undo(template: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Note]]:
    """The template as it was before tfpolicy touched it (``None`` if that cannot be known)."""
    original = copy.deepcopy(template)
    meta = original.get("metadata")
    if not isinstance(meta, dict):
        return original, []
    record, removed = _pop_own(meta)
    notes: list[Note] = []
    if record is not None:
        try:
            restored = decode_record(record)
        except ValueError as exc:
            path = ("metadata", "annotations", RECORD)
            return None, [Note(Severity.ERROR, "bad-record", f"cannot read {RECORD}: {exc}", path)]
        notes = _restore(original, restored)
    if removed and not meta:
        del original["metadata"]
    return original, notes


def _pop_own(meta: dict[str, Any]) -> tuple[Any, bool]:
    """Drop the enabled label and every tensor-fusion.ai/ and tfpolicy.dev/ annotation.

    A map this empties goes too (a stage created it); one that was empty stays.
    """
    found = meta.get("labels")
    removed = isinstance(found, dict) and found.pop(ENABLED, None) is not None
    if removed and not found:
        del meta["labels"]
    notes = meta.get("annotations")
    if not isinstance(notes, dict):
        return None, removed
    record = notes.get(RECORD)
    own = [k for k in notes if isinstance(k, str) and k.startswith((TF, OWN))]
    for key in own:
        del notes[key]
    if own and not notes:
        del meta["annotations"]
    return record, removed or bool(own)


def encode_record(usage: Usage) -> str:
    return json.dumps(usage, separators=(",", ":"), ensure_ascii=False)


def decode_record(text: Any) -> Usage:
    data = json.loads(text) if isinstance(text, str) else None
    if not isinstance(data, dict) or not all(_is_sections(s) for s in data.values()):
        raise ValueError('expected {"<container>": {"limits": {"<resource>": "<quantity>"}}}')
    return data


def _is_sections(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) <= set(SECTIONS)
            and all(isinstance(entries, dict) for entries in value.values()))


def _restore(template: dict[str, Any], usage: Usage) -> list[Note]:
    by_name = {str(c.get("name", "")): c for c in containers(template)}
    notes = []
    for name, sections in usage.items():
        container = by_name.get(name)
        if container is None:
            message = f"container {name!r} recorded in {RECORD} no longer exists"
            notes.append(Note(Severity.WARNING, "record-container-missing", message))
            continue
        resources = container.setdefault("resources", {})
        for section, entries in sections.items():
            resources.setdefault(section, {}).update(entries)
    return notes
