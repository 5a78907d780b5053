"""The pod webhook's decision flow, offline (NexusGPU/tensor-fusion
internal/webhook/v1/pod_webhook.go:84-280, auto_migration.go, pod_counter.go).

``admit`` takes a pod template (``{"metadata", "spec"}``, never mutated) and
returns what the webhook does with a pod made from it. Before the webhook,
the API server defaults container requests from limits (SetDefaults_Pod).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.admission_records import Admission, Decision, Rejection
from tfpolicy.admission.allocation import allocation_request
from tfpolicy.admission.automigrate import should_auto_migrate
from tfpolicy.admission.config import AdmissionContext
from tfpolicy.admission.diff import changes
from tfpolicy.admission.mutate import apply_profile
from tfpolicy.admission.native import (
    containers,
    default_requests,
    hami_default_gpus,
    has_gpu_request,
)
from tfpolicy.admission.parse import Profile, parse_profile
from tfpolicy.admission.replicas import over_cap
from tfpolicy.admission.resources import amount, is_zero
from tfpolicy.records import replace

_ZERO_MESSAGE = (
    "tflops request is not set, please set tensor-fusion.ai/tflops-request or/and "
    "tensor-fusion.ai/compute-percent-request or/and tensor-fusion.ai/vram-request "
    "annotation on Pod"
)


def admit(template: Mapping[str, Any], ctx: AdmissionContext) -> Admission:
    """Simulate the admission of one pod built from ``template``; a pod taken over that
    no scheduler will place, or that keeps its DRA claims, carries a note saying so."""
    admission = _admit(template, ctx)
    if admission.decision not in (Decision.TENSOR_FUSION, Decision.MIGRATED):
        return admission
    spec = template.get("spec") if isinstance(template.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    notes = tuple(note for field, note in _AFTER.items() if spec.get(field))
    return replace(admission, notes=admission.notes + notes) if notes else admission


# What happens after the webhook to a pod it took over, by the field that decides it
# (docs/kinds.md, "Pods no stage takes" and "GPUs through DRA").
_AFTER = {
    "nodeName": ("spec.nodeName binds the pod to a node with no scheduler: TensorFusion's "
                 "scheduler never allocates its GPUs and its device plugin waits for them "
                 "until it fails (NexusGPU/tensor-fusion pkg/hypervisor/backend/kubernetes/"
                 "pod_cache.go:46, :336-401): the pod never starts"),
    "resourceClaims": ("the pod keeps its spec.resourceClaims: a claim asking a GPU class "
                       "gives it GPUs outside TensorFusion, beside the ones TensorFusion "
                       "allocates (internal/utils/reconcile.go:200-212)"),
}


def _admit(template: Mapping[str, Any], ctx: AdmissionContext) -> Admission:
    submitted = submitted_pod(template, ctx)
    labels = submitted["metadata"].get("labels") or {}
    if labels.get(keys.ENABLED) == keys.TRUE:
        return _tensor_fusion(submitted, copy.deepcopy(submitted), Decision.TENSOR_FUSION, ctx)
    if not has_gpu_request(submitted, ctx.webhook.resources):
        return _with_hami(Admission(Decision.UNTOUCHED, submitted, reason="not a GPU pod"), ctx)
    verdict = should_auto_migrate(
        ctx.webhook.auto_migration, ctx.namespace, labels, ctx.webhook.namespace_labels,
    )
    if not verdict.migrate:
        return _with_hami(_not_migrated(submitted, verdict.reason, ctx), ctx)
    pod = copy.deepcopy(submitted)
    meta = pod["metadata"]
    meta.setdefault("labels", {})[keys.ENABLED] = keys.TRUE
    annotations = meta.setdefault("annotations", {})
    if keys.ISOLATION not in annotations:
        annotations[keys.ISOLATION] = "shared"  # only when absent (pod_webhook.go:127-133)
    return _tensor_fusion(submitted, pod, Decision.MIGRATED, ctx)


def _with_hami(admission: Admission, ctx: AdmissionContext) -> Admission:
    """An unmutated pod, noting the cards HAMi's webhook gives its containers that ask only
    for a HAMi share: no GPU to TensorFusion's webhook, but the pod holds them."""
    assert admission.pod is not None
    notes = tuple(f"container {name!r} asks HAMi only for a share: HAMi's webhook gives it "
                  f"{count} GPU, which it holds until rightsize converts the share"
                  for name, count in hami_default_gpus(admission.pod, ctx.webhook.hami_shares))
    return replace(admission, notes=admission.notes + notes) if notes else admission


def submitted_pod(template: Mapping[str, Any], ctx: AdmissionContext) -> dict[str, Any]:
    """The Pod the API server hands the webhook: named after the workload, defaulted."""
    meta = copy.deepcopy(dict(template.get("metadata") or {}))
    for name in ("name", "namespace", "generateName"):
        meta.pop(name, None)
    # A bare Pod with only generateName has no name yet when the webhook sees it.
    named = {"name": ctx.workload} if ctx.workload or not ctx.generate_name else {
        "generateName": ctx.generate_name}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {**named, "namespace": ctx.namespace, **meta},
        "spec": copy.deepcopy(dict(template.get("spec") or {})),
    }
    default_requests(pod)
    return pod


def _not_migrated(submitted: dict[str, Any], reason: str, ctx: AdmissionContext) -> Admission:
    """A native GPU pod the webhook leaves alone, bar progressive migration
    (pod_webhook.go:135-140)."""
    if not ctx.webhook.progressive_migration:
        return Admission(Decision.UNTOUCHED, submitted, reason=reason)
    pod = copy.deepcopy(submitted)
    pod["spec"]["schedulerName"] = keys.SCHEDULER_NAME
    reason = f"{reason}; progressive migration sets schedulerName {keys.SCHEDULER_NAME}"
    return Admission(Decision.UNTOUCHED, pod, tuple(changes(submitted, pod)), reason=reason)


def _tensor_fusion(
    submitted: dict[str, Any], pod: dict[str, Any], decision: Decision, ctx: AdmissionContext,
) -> Admission:
    try:
        profile = parse_profile(pod, ctx)
    except Rejection as error:
        return _rejected(f"parse tf resources: {error.message}", submitted, ctx)
    try:
        return _admit_profile(submitted, pod, profile, decision, ctx)
    except Rejection as error:
        return _rejected(error.message, submitted, ctx, profile.notes)


def _admit_profile(
    submitted: dict[str, Any], pod: dict[str, Any], profile: Profile, decision: Decision,
    ctx: AdmissionContext,
) -> Admission:
    if _gate(submitted, profile, ctx):
        return Admission(Decision.OVER_CAP, submitted, reason=(
            f"enabled-replicas {profile.enabled_replicas} reached: admitted unmutated"
        ), notes=profile.notes)
    qos = resolve_qos(profile)
    _validate_workload(profile, qos)
    names = {str(c.get("name", "")) for c in containers(pod)}
    if not any(n in names for n in profile.inject):
        return Admission(Decision.UNTOUCHED, submitted, reason=(
            "no valid container to inject tensor-fusion, skipped"
        ), notes=profile.notes)
    if _all_zero(profile):
        raise Rejection(_ZERO_MESSAGE)
    apply_profile(pod, profile, qos, ctx)
    meta = pod["metadata"]
    request = allocation_request(meta["annotations"], meta["labels"], ctx.namespace)
    reason = "taken over by auto-migration" if decision is Decision.MIGRATED else (
        f"labelled {keys.ENABLED}=true")
    return Admission(decision, pod, tuple(changes(submitted, pod)), request,
                     reason=reason, notes=profile.notes)


def _gate(pod: dict[str, Any], profile: Profile, ctx: AdmissionContext) -> bool:
    """The enabled-replicas counter check (pod_webhook.go:160-172); a pod without owner is an
    error."""
    if profile.enabled_replicas is None:
        return False
    if not ctx.has_controller:
        raise Rejection(
            "get tf pod count: no controller owner reference found for pod "
            f"{ctx.namespace}/{ctx.workload}"
        )
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return over_cap(ctx.taken_over, profile.enabled_replicas,
                    pod_template_hash=ctx.counts_replicas(labels))


def resolve_qos(profile: Profile) -> str:
    """Annotation, else high when requests equal non-zero limits, else the pool's
    (pod_webhook.go:787)."""
    if profile.qos:
        return profile.qos
    r = profile.gpu.resources
    pairs = ((r.tflops_request, r.tflops_limit), (r.vram_request, r.vram_limit))
    if all(not is_zero(req) and amount(req) == amount(lim) for req, lim in pairs):
        return "high"
    return profile.pool.default_qos or "medium"


def _validate_workload(profile: Profile, qos: str) -> None:
    """The TensorFusionWorkload CRD enums, checked when the webhook creates it
    (pod_webhook.go:284)."""
    problems = [
        f'spec.{name}: Unsupported value: "{value}": supported values: '
        + ", ".join(f'"{v}"' for v in allowed)
        for name, value, allowed in (
            ("isolation", profile.isolation, keys.ISOLATION_MODES),
            ("qos", qos, keys.QOS_LEVELS),
        ) if value not in allowed
    ]
    if problems:
        detail = problems[0] if len(problems) == 1 else f"[{', '.join(problems)}]"
        raise Rejection(
            "create tf workload: failed to create workload: TensorFusionWorkload.tensor-fusion.ai "
            f'"{profile.workload}" is invalid: {detail}'
        )


def _all_zero(profile: Profile) -> bool:
    """Step 10: nothing requested, outside shared and pinned partitions."""
    r = profile.gpu.resources
    if profile.isolation == "shared" and profile.gpu.count > 0:
        return False
    if profile.isolation == "partitioned" and profile.partition_id:
        return False
    return is_zero(r.tflops_request) and is_zero(r.percent_request) and is_zero(r.vram_request)


def _rejected(message: str, submitted: dict[str, Any], ctx: AdmissionContext,
              notes: tuple[str, ...] = ()) -> Admission:
    """The webhook errs: ``Fail`` rejects the CREATE, ``Ignore`` admits the pod unchanged."""
    if ctx.webhook.failure_policy == "Ignore":
        return Admission(Decision.UNTOUCHED, submitted, error=message, reason=(
            "the webhook errs and failurePolicy Ignore admits the pod unchanged"), notes=notes)
    return Admission(Decision.REJECTED, None, error=message, reason="rejected", notes=notes)
