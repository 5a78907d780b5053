"""The webhook's reading of a TensorFusion pod (reference §2.1 step 3, §1.2).

Errors raise :class:`Rejection` with the webhook's own wording where the
reference or the operator source gives it; the soft-limiter vendor message
is paraphrased. Not simulated: WorkloadProfile contents (step 3c; the
annotation is noted and ignored), autoscale rules (3j) and gang scheduling
validation (3n) — none of them changes the admitted pod's GPU shape here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.config import AdmissionContext, Pool, QuotaDefaults
from tfpolicy.admission.native import containers
from tfpolicy.admission.records import Rejection
from tfpolicy.admission.resources import (
    GpuSpec,
    Resources,
    go_parse_error,
    gpu_spec,
    parse_int32,
)


@dataclass(frozen=True, slots=True)
class Profile:
    """The resolved WorkloadProfile spec of one pod."""

    workload: str
    enabled_replicas: int | None
    pool: Pool
    local: bool
    sidecar: bool
    isolation: str
    partition_id: str
    gpu: GpuSpec
    inject: tuple[str, ...]
    vendor: str
    gpu_model: str
    qos: str  # the qos annotation; "" when absent (computed at step 5)
    notes: tuple[str, ...] = ()

    @property
    def container_gpu_count(self) -> str:
        """``{"main":2}``: Go's json.Marshal of a map sorts keys, no spaces."""
        native = self.gpu.native
        if native is None or not native.found:
            return ""
        return json.dumps(dict(sorted(native.per_container)), separators=(",", ":"))


def annotations_of(pod: Mapping[str, Any]) -> dict[str, str]:
    meta = pod.get("metadata") or {}
    return {str(k): str(v) for k, v in (meta.get("annotations") or {}).items()}


def parse_profile(pod: Mapping[str, Any], ctx: AdmissionContext) -> Profile:
    """Resolve the profile, raising the webhook's parse errors in its order."""
    ann = annotations_of(pod)
    replicas = _enabled_replicas(ann)
    pod_name = "" if ctx.has_controller else ctx.workload  # generateName pods have no name yet
    pool = _pool(ann, ctx.webhook.pools)
    local, sidecar = _locality(ann, pool)
    isolation = ann.get(keys.ISOLATION, "soft")
    # Local hard isolation runs through a worker sidecar (reference §1.5 `hard`).
    sidecar = sidecar or (local and isolation == "hard")
    if ann.get(keys.WORKER_POD_TEMPLATE) and local:
        mode = "SidecarWorker" if sidecar else "localGPU"
        raise Rejection(f"worker pod template is not supported in {mode} mode")
    base = _quota_base(ctx.webhook.quotas.get(ctx.namespace))
    gpu = gpu_spec(pod, ann, isolation, base, ctx.webhook.resources, pod_name)
    vendor = ann.get(keys.VENDOR, gpu.native.vendor if gpu.native else "")
    inject = _inject(pod, ann, gpu)
    model = ann.get(keys.GPU_MODEL, "")
    if isolation == "soft" and vendor in keys.NO_SOFT_LIMITER:
        raise Rejection(f"soft isolation is not supported for GPU vendor {vendor}")
    gpu = _dedicated(ann, model, gpu, ctx)
    partition = ann.get(keys.PARTITION_ID, "") if isolation == "partitioned" else ""
    notes = _notes(ann)
    return Profile(
        ctx.workload, replicas, pool, local, sidecar, isolation, partition, gpu, inject,
        vendor, model, ann.get(keys.QOS, ""), notes,
    )


def _enabled_replicas(ann: Mapping[str, str]) -> int | None:
    if keys.ENABLED_REPLICAS not in ann:
        return None
    text = ann[keys.ENABLED_REPLICAS]
    value = parse_int32(text)
    if value is None:
        raise Rejection(f"invalid enabledReplicas value: {text}, err: {go_parse_error(text)}")
    return value


def _pool(ann: Mapping[str, str], pools: tuple[Pool, ...]) -> Pool:
    """The annotated pool, else the first default pool (``checkAndGetValidGPUPool``)."""
    if keys.GPUPOOL in ann:
        found = [p for p in pools if p.name == ann[keys.GPUPOOL]]
    else:
        found = [p for p in pools if p.is_default]
    if not found:
        raise Rejection("gpu pool not found")
    return found[0]


def _locality(ann: Mapping[str, str], pool: Pool) -> tuple[bool, bool]:
    """(is local GPU, sidecar worker); an unset pool default means local (§9.9)."""
    value = ann.get(keys.IS_LOCAL_GPU)
    if value in (keys.TRUE, keys.FALSE):
        local = value == keys.TRUE
    else:
        local = pool.default_using_local_gpu is None or pool.default_using_local_gpu
    if ann.get(keys.SIDECAR_WORKER) == keys.TRUE:
        return True, True
    return local, False


def _quota_base(quota: QuotaDefaults | None) -> Resources:
    if quota is None:
        return Resources()
    return Resources(
        tflops_request=quota.tflops_request, tflops_limit=quota.tflops_limit,
        vram_request=quota.vram_request, vram_limit=quota.vram_limit,
    )


def _inject(pod: Mapping[str, Any], ann: Mapping[str, str], gpu: GpuSpec) -> tuple[str, ...]:
    """Explicit list, else the native GPU containers, else the only container."""
    text = ann.get(keys.INJECT_CONTAINER, "")
    if not text and gpu.native is not None and gpu.native.found:
        text = ",".join(gpu.native.containers)
    names = tuple(n.strip() for n in text.split(",")) if text else ()
    pod_containers = containers(pod)
    if len(pod_containers) > 1 and not names:
        raise Rejection("inject container has to be specified when Pod containers > 1")
    if not names and pod_containers:
        names = (str(pod_containers[0].get("name", "")),)
    return names


def _dedicated(ann: Mapping[str, str], model: str, gpu: GpuSpec, ctx: AdmissionContext) -> GpuSpec:
    """``dedicated-gpu``: request = limit = the model's full capacity (§1.2)."""
    if ann.get(keys.DEDICATED_GPU) != keys.TRUE:
        return gpu
    if not model:
        raise Rejection(
            "handle dedicated GPU: dedicated GPU requires gpu-model annotation to be specified"
        )
    capacity = ctx.webhook.gpu_models.get(model)
    if capacity is None:
        raise Rejection(
            f"handle dedicated GPU: could not find capacity information for GPU model: {model}"
        )
    full = Resources(
        tflops_request=capacity.tflops, tflops_limit=capacity.tflops,
        vram_request=capacity.vram, vram_limit=capacity.vram,
        percent_request=gpu.resources.percent_request, percent_limit=gpu.resources.percent_limit,
    )
    return GpuSpec(full, gpu.count, gpu.native, gpu.indices)


def _notes(ann: Mapping[str, str]) -> tuple[str, ...]:
    if keys.WORKLOAD_PROFILE in ann:
        return (f"WorkloadProfile {ann[keys.WORKLOAD_PROFILE]!r} is not read offline; "
                "its fields are not merged",)
    return ()
