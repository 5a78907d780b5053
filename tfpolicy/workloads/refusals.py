"""GPU pods no stage may take over whatever their kind: one the API server refuses, and one
bound to a node before any scheduler sees it (docs/kinds.md, "Pods no stage takes").

- A container asking an extended resource (every GPU is one) in ``requests`` must ask the
  same in ``limits``: "must be equal to <name> limit", "Limit must be set for non
  overcommitable resources" (kubernetes/kubernetes pkg/apis/core/validation/validation.go,
  validateResourceRequirements). Such a template is refused with an error: a rewrite
  would migrate a pod that cannot exist, and a rightsize would pick one of two counts.
- ``spec.nodeName`` set: "the scheduler ignores the Pod and the kubelet on the named node
  tries to place it" (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/
  #nodename). TensorFusion allocates a pod's GPUs in its scheduler, at PreBind
  (NexusGPU/tensor-fusion internal/scheduler/gpuresources/gpuresources.go:882-956 writes
  ``gpu-ids`` and ``index``); without them its device plugin's Allocate waits for the
  worker's devices (pkg/hypervisor/backend/kubernetes/deviceplugin.go:250-290,
  pod_cache.go:336-401) until its 10-minute timeout (pod_cache.go:46), and the pod never
  starts. A template TensorFusion already has (its label, or tfpolicy's record) is left to
  the stages, so that rollback still undoes it; ``check`` warns of it
  (:mod:`tfpolicy.admission.traps`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tfpolicy.findings import Severity
from tfpolicy.gpus.quantity import QuantityError, resource_quantity
from tfpolicy.gpus.vendors import accelerator
from tfpolicy.records import Record, replace
from tfpolicy.workloads.views import View

_ENABLED = "tensor-fusion.ai/enabled"
_RECORDS = "tfpolicy.dev/"  # tfpolicy's own annotations: the record of what it wrote
_VALIDATION = ("kubernetes/kubernetes pkg/apis/core/validation/validation.go, "
               "validateResourceRequirements")
_NODE_NAME = "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
_TF = "NexusGPU/tensor-fusion"


class Refusal(Record):
    reason: str
    rule: str
    severity: Severity


def refusal(template: Any) -> Refusal | None:
    """Why no stage may take the GPU pod of ``template`` over, or ``None``."""
    spec = template.get("spec") if isinstance(template, Mapping) else None
    if not isinstance(spec, Mapping):
        return None
    unequal = next(_unequal(spec), None)
    if unequal is not None:
        return Refusal(unequal, "gpu-request-not-limit", Severity.ERROR)
    node = spec.get("nodeName")
    if isinstance(node, str) and node and _asks_gpu(spec) and not _tensor_fusion(template):
        return Refusal(_pinned(node), "gpu-node-name", Severity.WARNING)
    return None


def with_refusal(view: View) -> View:
    """``view``, refused when no stage may take its GPU pod over, whatever its kind; a
    kind's own refusal comes first."""
    found = None if view.refused else refusal(view.template)
    if found is None:
        return view
    return replace(view, refused=found.reason, refused_rule=found.rule,
                   refused_severity=found.severity)


def _unequal(spec: Mapping[str, Any]) -> Iterator[str]:
    """A GPU each container asks in ``requests`` but not, or not as much, in ``limits``."""
    for field in ("containers", "initContainers"):
        items = spec.get(field)
        for index, container in enumerate(items if isinstance(items, list) else []):
            requests, limits = _sections(container)
            for name, value in requests.items():
                if accelerator(name) is None:
                    continue
                limit = limits.get(name)
                if not _quantity(value):
                    continue  # a placeholder, or a value refused by a rule of its own
                if limit is None or _differ(value, limit):
                    yield _unequal_text(field, index, container, name, value, limit)


def _unequal_text(field: str, index: int, container: Mapping[str, Any], name: str,
                  value: Any, limit: Any) -> str:
    where = f"the pod's spec.{field}[{index}] ({container.get('name')!r})"
    if limit is None:
        what, rule = "with no limit", "Limit must be set for non overcommitable resources"
    else:
        what, rule = f"unlike its limit ({limit!r})", f"must be equal to {name} limit"
    return (f"{where} asks {name}: {value!r} in requests {what}; Kubernetes refuses it (\"{rule}"
            f"\", {_VALIDATION}): an extended resource's request must equal its limit, so the "
            "API server refuses this pod; write the count in limits only (the request "
            "defaults to it)")


def _pinned(node: str) -> str:
    return (f"spec.nodeName binds this pod to node {node!r} with no scheduler ({_NODE_NAME}): "
            "TensorFusion's scheduler would never allocate its GPUs, and its device plugin "
            f"waits for them until it fails ({_TF} internal/scheduler/gpuresources/"
            "gpuresources.go:882-956, pkg/hypervisor/backend/kubernetes/pod_cache.go:46, "
            ":336-401), so the pod would never start; to pin it, use a nodeSelector on "
            "kubernetes.io/hostname, which the scheduler honours")


def _sections(container: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    resources = container.get("resources") if isinstance(container, Mapping) else None
    if not isinstance(resources, Mapping):
        return {}, {}
    requests, limits = resources.get("requests"), resources.get("limits")
    return (requests if isinstance(requests, Mapping) else {},
            limits if isinstance(limits, Mapping) else {})


def _differ(value: Any, limit: Any) -> bool:
    """Two quantities Kubernetes reads as different; ``False`` when one is no quantity at
    all (that is the error of its own rule)."""
    try:
        return resource_quantity(value) != resource_quantity(limit)
    except QuantityError:
        return False


def _quantity(value: Any) -> bool:
    try:
        resource_quantity(value)
    except QuantityError:
        return False
    return True


def _asks_gpu(spec: Mapping[str, Any]) -> bool:
    items = spec.get("containers")
    for container in items if isinstance(items, list) else []:
        requests, limits = _sections(container)
        if any(accelerator(n) is not None and _positive(v)
               for section in (requests, limits) for n, v in section.items()):
            return True
    return False


def _positive(value: Any) -> bool:
    try:
        return resource_quantity(value) > 0
    except QuantityError:
        return False


def _tensor_fusion(template: Mapping[str, Any]) -> bool:
    meta = template.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    labels, notes = meta.get("labels"), meta.get("annotations")
    if isinstance(labels, Mapping) and labels.get(_ENABLED) == "true":
        return True
    return isinstance(notes, Mapping) and any(
        isinstance(k, str) and k.startswith(_RECORDS) for k in notes)
