"""The GPU workloads of the manifests, found by the engine's own rules (DESIGN §1)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tfpolicy.gpus.resources import GpuResources
from tfpolicy.recommend.core import GpuWorkload
from tfpolicy.recommend.mapping import WorkloadId
from tfpolicy.rewrite.engine import objects
from tfpolicy.stages.common import annotations_of, is_gpu_workload, labels_of
from tfpolicy.stages.keys import ENABLED, QOS
from tfpolicy.workloads import Registry

_QOS = ("low", "medium", "high", "critical")


def gpu_workloads(documents: Iterable[Any], namespace: str) -> list[GpuWorkload]:
    """One entry per object with a GPU pod template (its template's QoS when it names one)."""
    registry, gpus = Registry(), GpuResources()
    found: dict[WorkloadId, GpuWorkload] = {}
    for data in documents:
        for _, obj in objects(data):
            templates = [view.template for view in registry.views(obj)]
            # an opted-out template is never migrated, so it needs no size (DESIGN §1)
            gpu = [t for t in templates
                   if is_gpu_workload(t, gpus) and labels_of(t).get(ENABLED) != "false"]
            if gpu:
                workload = GpuWorkload(_id(obj, namespace), _qos(gpu))
                found.setdefault(workload.id, workload)
    return sorted(found.values(), key=lambda w: w.id)


def _id(obj: Mapping[str, Any], namespace: str) -> WorkloadId:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    ns = meta.get("namespace")
    return WorkloadId(ns if isinstance(ns, str) and ns else namespace, str(obj.get("kind")),
                      str(meta.get("name", "")))


def _qos(templates: list[Any]) -> str:
    values = {annotations_of(t).get(QOS) for t in templates}
    value = values.pop() if len(values) == 1 else None
    return value if value in _QOS else ""
