"""The webhook's reading of a TensorFusion pod (NexusGPU/tensor-fusion
internal/webhook/v1/tf_parser.go:40-225, ParseTensorFusionInfo).

Errors raise :class:`Rejection` with the webhook's own wording where the
reference or the operator source gives it; the soft-limiter vendor message
is paraphrased. A WorkloadProfile (step 3c) is the base the annotations
override; a namespace GPUResourceQuota fills TFLOPS/VRAM still zero (3h).
Not simulated: autoscale annotations and the pool's vertical scaling rules
(3j), which change no GPU shape at admission.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.admission_records import Rejection
from tfpolicy.admission.config import AdmissionContext, Pool, ProfileSpec, QuotaDefaults
from tfpolicy.admission.gang import gang_stamps
from tfpolicy.admission.native import containers
from tfpolicy.admission.resources import (
    GpuSpec,
    Resources,
    go_parse_error,
    gpu_spec,
    is_zero,
    parse_int32,
)
from tfpolicy.records import Record, replace


class Profile(Record):
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
    qos: str  # the qos annotation, else the profile's; "" when absent (computed at step 5)
    notes: tuple[str, ...] = ()
    stamps: tuple[tuple[str, str], ...] = ()  # gang annotations the webhook stamps

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
    workload = workload_name(ctx)
    base = _workload_profile(ann, ctx)
    pool = _pool(ann, ctx.webhook.pools)
    local, sidecar = _locality(ann, pool, base.sidecar_worker)
    isolation = ann.get(keys.ISOLATION, "soft")
    # Local hard isolation runs through a worker sidecar (`compose.go` UseLocalWorkerSidecar).
    sidecar = sidecar or (local and isolation == "hard")
    partition = ann.get(keys.PARTITION_ID) or base.partition_id
    if ann.get(keys.WORKER_POD_TEMPLATE) and local:
        mode = "SidecarWorker" if sidecar else "localGPU"
        raise Rejection(f"worker pod template is not supported in {mode} mode")
    start = _quota_base(base.resources, ctx.webhook.quotas.get(ctx.namespace))
    gpu = gpu_spec(pod, ann, isolation, start, ctx.webhook.resources,
                   "" if ctx.has_controller else ctx.workload, base.gpu_count)
    # The profile's vendor, else the native resource's; a present annotation wins, even "".
    vendor = ann.get(keys.VENDOR, base.vendor or (gpu.native.vendor if gpu.native else ""))
    inject = _inject(pod, ann, gpu)
    model = ann.get(keys.GPU_MODEL, base.gpu_model)
    if isolation == "soft" and vendor.strip().lower() in keys.NO_SOFT_LIMITER:
        raise Rejection(f'isolation=soft is not supported for vendor "{vendor}"; set annotation '
                        f"{keys.ISOLATION}=partitioned or pick another mode")
    gpu = _dedicated(ann, model, gpu, ctx)
    stamps = gang_stamps(ann, base, replicas,
                         ctx.replicas if ctx.has_controller else None,
                         f"{ctx.namespace}/{workload}")
    return Profile(
        workload, replicas, pool, local, sidecar, isolation,
        partition if isolation == "partitioned" else "", gpu, inject, vendor, model,
        ann.get(keys.QOS, base.qos), (), tuple(stamps.items()),
    )


def workload_name(ctx: AdmissionContext) -> str:
    """The controller's name, else the pod's, else ``<generateName>-<8 chars>``.

    Upstream draws the 8 characters at random (``tf_parser.go:62-72``); here
    they are a hash of namespace and ``generateName``, so output stays stable.
    """
    if ctx.workload or ctx.has_controller or not ctx.generate_name:
        return ctx.workload
    digest = hashlib.sha256(f"{ctx.namespace}/{ctx.generate_name}".encode()).hexdigest()
    return f"{ctx.generate_name}-{digest[:8]}"


def _workload_profile(ann: Mapping[str, str], ctx: AdmissionContext) -> ProfileSpec:
    """The WorkloadProfile named by the annotation, in the pod's namespace (step 3c)."""
    name = ann.get(keys.WORKLOAD_PROFILE)
    if name is None:
        return ProfileSpec()
    found = ctx.webhook.profiles.get((ctx.namespace, name))
    if found is None:
        raise Rejection(f'get workload profile({name}) : workloadprofiles.tensor-fusion.ai '
                        f'"{name}" not found')
    return found


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


def _locality(ann: Mapping[str, str], pool: Pool, sidecar: bool) -> tuple[bool, bool]:
    """(is local GPU, sidecar worker); an unset pool default means local (tf_parser.go:91-103)."""
    value = ann.get(keys.IS_LOCAL_GPU)
    if value in (keys.TRUE, keys.FALSE):
        local = value == keys.TRUE
    else:
        local = pool.default_using_local_gpu is None or pool.default_using_local_gpu
    if ann.get(keys.SIDECAR_WORKER) == keys.TRUE:
        return True, True
    return local, sidecar and local


def _quota_base(base: Resources, quota: QuotaDefaults | None) -> Resources:
    """Quota defaults fill only the TFLOPS and VRAM still zero (``setDefaultQuotasIfExists``)."""
    if quota is None:
        return base
    pairs = {"tflops_request": quota.tflops_request, "tflops_limit": quota.tflops_limit,
             "vram_request": quota.vram_request, "vram_limit": quota.vram_limit}
    return replace(base, **{k: v for k, v in pairs.items()
                            if is_zero(getattr(base, k)) and v})


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
    """``dedicated-gpu``: request = limit = the model's full capacity (tf_parser.go:668)."""
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
