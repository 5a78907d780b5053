"""Write a resolved profile onto the pod, as the webhook patches it (NexusGPU/tensor-fusion
internal/webhook/v1/pod_webhook.go:190-280).

Written: the annotations of internal/utils/compose.go:170 (qos, gpu-count, gpupool, non-zero
tflops/vram/compute-percent in canonical Quantity form, gpu-model, vendor,
is-local-gpu, sidecar-worker, inject-container, isolation, partition-id,
container-gpu-count, embedded-worker, selected-workload,
pending-owned-workload, the gang stamps), the labels component / gpupool / workload,
``schedulerName`` in local mode, the used-by toleration, the QoS priority
class, and the removal of every recognised GPU resource from the requests
and limits of the injected containers only (pod_webhook.go:448, :645-653).

Not reproduced, because their values exist only in the live cluster: the
pool client template hash label ``tensor-fusion.ai/pod-template-hash``, the
``tensor-fusion.ai/index_<h>`` device-plugin slot resource, the
``pod-counter-key`` annotation, host ports; nor the soft-limiter init
container, env and volumes, the hard-isolation worker sidecar, and the
remote-mode connection env and pool ``patchToPod``/``patchToContainer``
strategic merges (internal/utils/compose.go). They add to the pod without changing its GPU shape.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.config import AdmissionContext
from tfpolicy.admission.native import containers
from tfpolicy.admission.parse import Profile
from tfpolicy.admission.resources import Resources, is_zero
from tfpolicy.gpus.quantity import canonical
from tfpolicy.gpus.resources import GpuResources

# priorityClassName per QoS (charts/tensor-fusion/templates/priorityclass.yaml, pod_webhook.go:238).
PRIORITY_CLASSES = {"high": "tensor-fusion-high", "critical": "tensor-fusion-critical"}
TOLERATION = {
    "key": keys.USED_BY, "operator": "Equal", "value": keys.SYSTEM_NAME,
    "effect": "PreferNoSchedule",
}


def apply_profile(pod: dict[str, Any], profile: Profile, qos: str, ctx: AdmissionContext) -> None:
    """Mutate ``pod`` (a private copy) into the admitted Pod."""
    meta = pod.setdefault("metadata", {})
    meta.setdefault("labels", {})
    annotations = meta.setdefault("annotations", {})
    spec = pod.setdefault("spec", {})
    if not ctx.has_controller:
        annotations[keys.PENDING_OWNED_WORKLOAD] = profile.workload
    if profile.local:
        spec["schedulerName"] = keys.SCHEDULER_NAME
    annotations.update(tf_annotations(profile, qos))
    if qos in PRIORITY_CLASSES and not spec.get("priorityClassName"):
        spec["priorityClassName"] = PRIORITY_CLASSES[qos]
        spec.pop("priority", None)
    _labels_and_mode(pod, profile)
    annotations.pop(keys.INDEX, None)  # only the scheduler may set it
    _remove_native(pod, profile.inject, ctx.webhook.resources.in_use())


def tf_annotations(profile: Profile, qos: str) -> dict[str, str]:
    """The annotations compose.go:170 writes, always-written ones first."""
    out = {
        keys.QOS: qos,
        keys.GPU_COUNT: str(profile.gpu.count),
        keys.GPUPOOL: profile.pool.name,
        **resource_annotations(profile.gpu.resources),
    }
    if profile.gpu_model:
        out[keys.GPU_MODEL] = profile.gpu_model
    if profile.vendor:
        out[keys.VENDOR] = profile.vendor
    out[keys.IS_LOCAL_GPU] = _bool(profile.local)
    out[keys.SIDECAR_WORKER] = _bool(profile.sidecar)
    out[keys.INJECT_CONTAINER] = ",".join(profile.inject)
    out[keys.ISOLATION] = profile.isolation
    if profile.partition_id:
        out[keys.PARTITION_ID] = profile.partition_id
    if profile.container_gpu_count:
        out[keys.CONTAINER_GPU_COUNT] = profile.container_gpu_count
    out.update(profile.stamps)
    return out


def resource_annotations(r: Resources) -> dict[str, str]:
    """Non-zero per-GPU resources in Kubernetes canonical form (compose.go:170)."""
    pairs = (
        (keys.TFLOPS_REQUEST, r.tflops_request), (keys.TFLOPS_LIMIT, r.tflops_limit),
        (keys.VRAM_REQUEST, r.vram_request), (keys.VRAM_LIMIT, r.vram_limit),
        (keys.PERCENT_REQUEST, r.percent_request), (keys.PERCENT_LIMIT, r.percent_limit),
    )
    return {name: canonical(value) for name, value in pairs if not is_zero(value)}


def _labels_and_mode(pod: dict[str, Any], profile: Profile) -> None:
    meta, spec = pod["metadata"], pod["spec"]
    labels, annotations = meta["labels"], meta["annotations"]
    if profile.local:
        labels[keys.COMPONENT] = "worker"
        labels[keys.WORKLOAD] = profile.workload
        spec["tolerations"] = [*(spec.get("tolerations") or []), dict(TOLERATION)]
        if profile.sidecar:
            annotations.pop(keys.EMBEDDED_WORKER, None)
        else:
            annotations[keys.EMBEDDED_WORKER] = keys.TRUE
    else:
        labels[keys.COMPONENT] = "client"
        annotations[keys.SELECTED_WORKLOAD] = profile.workload
    labels[keys.GPUPOOL] = profile.pool.name


def _remove_native(pod: dict[str, Any], inject: tuple[str, ...], names: GpuResources) -> None:
    for container in containers(pod):
        if container.get("name") not in inject:
            continue
        resources = container.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in ("requests", "limits"):
            kept = {k: v for k, v in (resources.get(section) or {}).items() if k not in names}
            if kept:
                resources[section] = kept
            else:
                resources.pop(section, None)  # an empty ResourceList is omitted in JSON


def _bool(value: bool) -> str:
    return keys.TRUE if value else keys.FALSE
