"""The GPU workloads of the manifests, found by the engine's own rules (docs/kinds.md).

Each with the pre-allocating server one of its GPU containers runs, if any
(``tfpolicy.frameworks``), what the policy gives of its model's size, and the
isolation its template asks for (under which ``check`` judges the server's setting).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tfpolicy.admission.native import containers, gpu_resource_names
from tfpolicy.frameworks.detect import Found, detect
from tfpolicy.frameworks.framework_table import Framework
from tfpolicy.frameworks.sizing import Given
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.recommend.core import GpuWorkload
from tfpolicy.recommend.mapping import WorkloadId
from tfpolicy.rewrite.engine import objects
from tfpolicy.stages.common import annotations_of, is_gpu_workload, labels_of
from tfpolicy.stages.keys import ENABLED, ISOLATION, QOS
from tfpolicy.workloads import Registry

_QOS = ("low", "medium", "high", "critical")


def gpu_workloads(documents: Iterable[Any], namespace: str, frameworks: Sequence[Framework] = (),
                  given: Callable[[WorkloadId], Given] = lambda _: Given()) -> list[GpuWorkload]:
    """One entry per object with a GPU pod template (its template's QoS when it names one)."""
    registry, gpus = Registry(), GpuResources()
    found: dict[WorkloadId, GpuWorkload] = {}
    for data in documents:
        for _, obj in objects(data):
            templates = [view.template for view in registry.views(obj)]
            # an opted-out template is never migrated, so it needs no size (docs/kinds.md)
            gpu = [t for t in templates
                   if is_gpu_workload(t, gpus) and labels_of(t).get(ENABLED) != "false"]
            if gpu:
                workload_id = _id(obj, namespace)
                workload = GpuWorkload(workload_id, _qos(gpu), _framework(gpu, gpus, frameworks),
                                       given(workload_id), _isolation(gpu))
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


def _isolation(templates: list[Any]) -> str:
    values = {str(annotations_of(t).get(ISOLATION, "soft")) for t in templates}
    return values.pop() if len(values) == 1 else "soft"


def _framework(templates: list[Any], gpus: GpuResources,
               frameworks: Sequence[Framework]) -> Found | None:
    """The first GPU container's pre-allocating server (the pool is per GPU container)."""
    for template in templates:
        for index, container in enumerate(containers(template)):
            if gpu_resource_names(container, gpus):
                found = detect(container, index, frameworks)
                if found is not None and found.preallocates:
                    return found
    return None
