"""Webhook behaviour that surprises users, as warnings for ``tfpolicy check`` (docs/stages.md).

Each trap has a rule id, a message and the field path (relative to the pod
template: ``metadata...`` / ``spec...``) where the user would fix it. Rules
live in an explicit registry; ``webhook_traps`` runs them all and returns
the warnings sorted by path then rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from tfpolicy.admission import keys
from tfpolicy.admission.keys import NO_CONTROLLER
from tfpolicy.admission.native import containers, gpu_resource_names
from tfpolicy.frameworks.traps import pool_findings
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.records import Record
from tfpolicy.workloads.revisions import carries_template_hash

if TYPE_CHECKING:
    from tfpolicy.findings import Finding

_FRACTIONAL = (keys.TFLOPS_REQUEST, keys.TFLOPS_LIMIT, keys.VRAM_REQUEST, keys.VRAM_LIMIT)
_SIZING = (*_FRACTIONAL, keys.PERCENT_REQUEST, keys.PERCENT_LIMIT)


class Trap(Record):
    rule: str
    message: str
    path: str
    severity: str = "warning"  # "info": a framework's pool with no headroom, or unsized

    def finding(self, **where: Any) -> Finding:
        """As a finding of its severity; ``where`` fills resource, file, line…"""
        # Imported here so the simulation stays importable on its own.
        from tfpolicy.findings import Finding, Severity

        return Finding(Severity[self.severity.upper()], self.message, f"webhook-{self.rule}",
                       field=self.path, **where)


class _Pod(Record):
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    gpu_containers: tuple[tuple[int, str], ...]  # (index, first GPU resource name)
    owner_kind: str
    pod_template_hash: bool
    node_name: str = ""  # spec.nodeName
    claims: int = 0  # entries of spec.resourceClaims


# join_path is imported where a trap is found: a template that has none never loads the
# webhook's diff and its change records.
def _ann(name: str) -> str:
    from tfpolicy.admission.diff import join_path

    return join_path(join_path("metadata", "annotations"), name)


def _label(name: str) -> str:
    from tfpolicy.admission.diff import join_path

    return join_path(join_path("metadata", "labels"), name)


def _soft_no_vram(pod: _Pod) -> Iterator[Trap]:
    """tf_parser.go:463-468: a labelled native-GPU pod becomes soft with 100 % compute and no
    VRAM."""
    if pod.labels.get(keys.ENABLED) != keys.TRUE or not pod.gpu_containers:
        return
    if keys.ISOLATION in pod.annotations or keys.GPU_COUNT in pod.annotations:
        return
    if any(k in pod.annotations for k in (keys.VRAM_REQUEST, keys.VRAM_LIMIT)):
        return
    yield Trap("soft-no-vram", (
        f"{keys.ENABLED}=true on a pod with native GPU limits and no {keys.ISOLATION}: the "
        "webhook makes it isolation soft with compute-percent 100 and no VRAM reserved, "
        f"not a whole card; set {keys.ISOLATION}: shared for whole cards"
    ), _label(keys.ENABLED))


def _shared_sizing(pod: _Pod) -> Iterator[Trap]:
    """tf_parser.go:463-468: shared is count-only; sizing annotations do not affect placement."""
    if pod.annotations.get(keys.ISOLATION) != "shared":
        return
    for name in _SIZING:
        if name in pod.annotations:
            yield Trap("shared-ignores-resources", (
                f"{name} is ignored for placement: isolation shared takes whole idle GPUs"
            ), _ann(name))


def _automigration_shared(pod: _Pod) -> Iterator[Trap]:
    """pod_webhook.go:124-133: fractional annotations plus native GPUs and no label rely on
    auto-migration."""
    if pod.labels.get(keys.ENABLED) == keys.TRUE or keys.ISOLATION in pod.annotations:
        return
    if not pod.gpu_containers or not any(k in pod.annotations for k in _FRACTIONAL):
        return
    from tfpolicy.admission.diff import join_path

    for index, resource in pod.gpu_containers:
        yield Trap("automigration-reapplies-shared", (
            f"{resource} is still requested and {keys.ENABLED} is not set: only auto-migration "
            f"would take this pod over, and it writes {keys.ISOLATION}: shared, which ignores "
            "the TFLOPS/VRAM annotations"
        ), join_path(f"spec.containers[{index}].resources.limits", resource))


def _enabled_replicas(pod: _Pod) -> Iterator[Trap]:
    """pod_counter.go:24-44: the cap needs pod-template-hash; a pod without owner is rejected."""
    if keys.ENABLED_REPLICAS not in pod.annotations:
        return
    if pod.owner_kind in NO_CONTROLLER:
        yield Trap("enabled-replicas-no-owner", (
            f"{keys.ENABLED_REPLICAS} on a pod without a controller: the webhook rejects it"
        ), _ann(keys.ENABLED_REPLICAS))
    elif not pod.pod_template_hash:
        yield Trap("enabled-replicas-not-enforced", (
            f"{keys.ENABLED_REPLICAS} is not enforced for {pod.owner_kind} pods: they carry no "
            "pod-template-hash, so every pod is taken over"
        ), _ann(keys.ENABLED_REPLICAS))


def _obsolete(pod: _Pod) -> Iterator[Trap]:
    """Keys from the stale site docs (tensor-fusion-site workload-annotation.md) that the code
    never reads."""
    for name, current in sorted(keys.OBSOLETE.items()):
        if name in pod.annotations:
            yield Trap("obsolete-key", (
                f"{name} is not read by the webhook; use {current}"
            ), _ann(name))


def _dedicated_without_model(pod: _Pod) -> Iterator[Trap]:
    """tf_parser.go:668: dedicated-gpu takes the capacity of gpu-model; without it the pod is
    rejected."""
    if pod.annotations.get(keys.DEDICATED_GPU) == keys.TRUE and not pod.annotations.get(
        keys.GPU_MODEL
    ):
        yield Trap("dedicated-gpu-without-model", (
            f"{keys.DEDICATED_GPU}: true needs {keys.GPU_MODEL}; the webhook rejects the pod"
        ), _ann(keys.DEDICATED_GPU))


def _node_name(pod: _Pod) -> Iterator[Trap]:
    """A TensorFusion pod bound to a node: no scheduler runs, so no GPU is allocated
    (docs/kinds.md, "Pods no stage takes")."""
    if pod.labels.get(keys.ENABLED) == keys.TRUE and pod.node_name:
        yield Trap("node-name", (
            f"spec.nodeName binds this TensorFusion pod to node {pod.node_name!r} with no "
            "scheduler: TensorFusion's scheduler never allocates its GPUs, and its device "
            "plugin waits for them until it fails (NexusGPU/tensor-fusion pkg/hypervisor/"
            "backend/kubernetes/pod_cache.go:46, :336-401): the pod never starts; use a "
            "nodeSelector on kubernetes.io/hostname instead"), "spec.nodeName")


def _dra_claims(pod: _Pod) -> Iterator[Trap]:
    """A TensorFusion pod that keeps its DRA claims: their GPUs come on top of its own."""
    if pod.labels.get(keys.ENABLED) == keys.TRUE and pod.claims:
        yield Trap("dra-claims", (
            "this TensorFusion pod keeps its spec.resourceClaims: TensorFusion takes GPUs from "
            "container resources only (NexusGPU/tensor-fusion internal/utils/reconcile.go:"
            "200-212) and gives the pod GPUs of its own (1 when none is named: internal/"
            "webhook/v1/tf_parser.go:591-592), so a claim asking a GPU class gives it more "
            "GPUs, outside TensorFusion; ask them in the container's resources instead"),
            "spec.resourceClaims")


TRAPS: dict[str, Callable[[_Pod], Iterator[Trap]]] = {
    "soft-no-vram": _soft_no_vram,
    "shared-ignores-resources": _shared_sizing,
    "automigration-reapplies-shared": _automigration_shared,
    "enabled-replicas": _enabled_replicas,
    "obsolete-key": _obsolete,
    "dedicated-gpu-without-model": _dedicated_without_model,
    "node-name": _node_name,
    "dra-claims": _dra_claims,
}


def webhook_traps(
    template: Mapping[str, Any], owner_kind: str, *, pod_template_hash: bool | None = None,
    resources: GpuResources | None = None,
) -> list[Trap]:
    """Every trap in one pod template; ``owner_kind`` ``Pod`` means no controller."""
    pod = _view(template, owner_kind, pod_template_hash, resources or GpuResources())
    found = [trap for rule in TRAPS.values() for trap in rule(pod)]
    found += [Trap(f.rule, f.message, f.path, f.severity) for f in pool_findings(template)]
    return sorted(found, key=lambda t: (t.path, t.rule, t.message))


def _view(template: Mapping[str, Any], owner_kind: str, hashed: bool | None,
          names: GpuResources) -> _Pod:
    # A GPU template whose metadata, labels or annotations are not maps is the stage's
    # located error (not-a-mapping); here they are only read, as holding nothing.
    meta = _map(template.get("metadata"))
    gpus = []
    for index, container in enumerate(containers(template)):
        found = gpu_resource_names(container, names)
        if found:
            gpus.append((index, found[0]))
    labels = {str(k): str(v) for k, v in _map(meta.get("labels")).items()}
    # The counter keys on the label, whatever the owner kind (pod_counter.go:24-44).
    hashed = hashed if hashed is not None else carries_template_hash(owner_kind, labels)
    spec = _map(template.get("spec"))
    node, claims = spec.get("nodeName"), spec.get("resourceClaims")
    return _Pod(
        labels=labels,
        annotations={str(k): str(v) for k, v in _map(meta.get("annotations")).items()},
        gpu_containers=tuple(gpus),
        owner_kind=owner_kind,
        pod_template_hash=hashed,
        node_name=node if isinstance(node, str) else "",
        claims=len(claims) if isinstance(claims, list) else 0,
    )


def _map(value: Any) -> Mapping[Any, Any]:
    return value if isinstance(value, Mapping) else {}
