"""What every stage shares: reading a pod template and GPU detection.

Facts, NexusGPU/tensor-fusion at 3e0a4901: the keys, ``pkg/constants/constants.go:71-100``;
native GPU limits summed across containers, a MIG resource counting as one
whole GPU, ``internal/webhook/v1/tf_parser.go:444-480``. Kubernetes defaults
requests from limits (kubernetes/kubernetes ``pkg/apis/core/v1/defaults.go``,
``SetDefaults_Pod``), so a limit alone is a request.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.gpus.quantity import QuantityError
from tfpolicy.gpus.quantity import resource_quantity as parse_quantity  # a resource's value
from tfpolicy.gpus.resources import HAMI_RESOURCES, GpuResources
from tfpolicy.records import Record
from tfpolicy.stages.keys import ENABLED as ENABLED
from tfpolicy.stages.keys import OWN as OWN
from tfpolicy.stages.keys import RECORDS
from tfpolicy.stages.keys import TF as TF
from tfpolicy.stages.record import SECTIONS as SECTIONS
from tfpolicy.stages.record import Usage as Usage
from tfpolicy.stages.record import surrogate_in


class Note(Record):
    """A stage's finding, located by a path relative to the pod template."""

    severity: Severity
    rule: str
    message: str
    path: Path = ()


class StageContext(Record):
    kind: str
    replicas: int | None
    gpus: GpuResources
    pod_template_hash: bool = False  # its pods carry the label (workloads.revisions)


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


def gpu_usage(template: Any, gpus: Container[str]) -> Usage:
    """The GPU resources each container asks for, as written, in document order (or the
    resources ``gpus`` names, whatever they are)."""
    names = gpus.name_set if isinstance(gpus, GpuResources) else gpus  # a set: tested in C
    usage: Usage = {}
    for container in containers(template):
        resources = container.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in SECTIONS:
            entries = resources.get(section)
            if not isinstance(entries, dict):
                continue
            for name, value in entries.items():
                if name in names:
                    sections = usage.setdefault(str(container.get("name", "")), {})
                    sections.setdefault(section, {})[name] = value
    return usage


# envsubst/shell (`$GPUS`, `${GPUS}`) or Go template (`{{ .gpus }}`) syntax left unrendered.
_PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_]|\{\{")


def whole_count(value: Any) -> int | None:
    """A GPU count as the API server takes it: a whole, non-negative quantity (extended
    resources admit no fractions), else ``None``."""
    try:
        amount = parse_quantity(value)
    except QuantityError:
        return None
    return int(amount) if amount.denominator == 1 and amount >= 0 else None


def bad_counts(template: Any, usage: Usage) -> list[Note]:
    """An error per GPU quantity that is not a whole count, located at the value; every
    stage that writes refuses such a template, so none of them migrates it half-way."""
    index = {str(c.get("name", "")): i for i, c in enumerate(containers(template))}
    notes = []
    for name, sections in usage.items():
        for section, entries in sections.items():
            for resource, value in entries.items():
                if whole_count(value) is None:
                    path = ("spec", "containers", index[name], "resources", section, resource)
                    notes.append(Note(Severity.ERROR, "invalid-quantity",
                                      _count_message(resource, value, name), path))
    return notes


def bad_names(template: Any) -> list[Note]:
    """An error per container whose name is missing or repeats an earlier one: the API
    server refuses such a pod, and the record and ``inject-container`` name containers."""
    seen: set[str] = set()
    notes = []
    for index, container in enumerate(containers(template)):
        name = container.get("name")
        what = _bad_name(name, seen)
        if what is not None:
            path = ("spec", "containers", index, "name")
            notes.append(Note(Severity.ERROR, "invalid-container-name",
                              f"container {index} {what}: Kubernetes refuses the pod", path))
        seen.add(str(name))
    return notes


def _bad_name(name: Any, seen: set[str]) -> str | None:
    if not isinstance(name, str) or not name:
        return "has no name"
    if name in seen:
        return "repeats a name"
    surrogate = surrogate_in(name)  # not text: the record and inject-container cannot hold it
    return None if surrogate is None else f"has a name holding {surrogate}"


def _count_message(resource: str, value: Any, container: str) -> str:
    shown = repr(value) if len(repr(value)) <= 32 else repr(value)[:29] + "..."
    where = f"{resource}: {shown} in container {container!r}"
    if isinstance(value, str) and _PLACEHOLDER.search(value):
        return f"{where} is a placeholder, not a quantity: render the manifest first"
    return f"{where} is not a whole GPU count"


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


def is_gpu_workload(template: Any, gpus: GpuResources,
                    hami_names: frozenset[str] = frozenset(HAMI_RESOURCES)) -> bool:
    """Asks for a GPU, or a HAMi share of one (by its chart's names or a policy's), or
    carries tfpolicy's record."""
    return (any(key in annotations_of(template) for key in RECORDS)
            or asks_for_gpu(gpu_usage(template, gpus))
            or asks_for_gpu(gpu_usage(template, hami_names)))
