"""Annotations every enabling stage writes from the policy: pool, QoS, model, enabled-replicas.

enabled-replicas facts (NexusGPU/tensor-fusion at 3e0a4901,
``internal/webhook/v1/pod_counter.go:24-44``): the webhook counts taken-over
pods per direct owner under the pod's ``pod-template-hash`` label, which only
Deployment-made ReplicaSets stamp; a pod with no owner is rejected
(``pod_counter.go:41-44``, ``pod_webhook.go:164-167``).
"""

from __future__ import annotations

from tfpolicy.findings import Severity
from tfpolicy.policy.model import Settings
from tfpolicy.stages.canary import rung_count
from tfpolicy.stages.common import TF, Note, StageContext

ENABLED_REPLICAS = TF + "enabled-replicas"
_PATH = ("metadata", "annotations", ENABLED_REPLICAS)


def placement_annotations(settings: Settings) -> dict[str, str]:
    pairs = ((TF + "gpupool", settings.pool), (TF + "qos", settings.qos),
             (TF + "gpu-model", settings.gpu_model))
    return {key: value for key, value in pairs if value is not None}


def enabled_replicas(settings: Settings, ctx: StageContext) -> tuple[dict[str, str], list[Note]]:
    """The enabled-replicas annotation (absent for "all") and what to say about it."""
    wanted = settings.enabled_replicas
    if wanted is None:
        return {}, []
    count = rung_count(wanted, ctx.replicas if ctx.replicas is not None else 1)
    if count is None:
        return {}, []
    notes = _enforcement(ctx.kind, ctx.pod_template_hash)
    if isinstance(wanted, str) and ctx.replicas is None:
        message = f"{ctx.kind} replicas are decided by the cluster; {wanted} is taken of 1"
        notes.append(Note(Severity.WARNING, "enabled-replicas-percent", message, _PATH))
    return {ENABLED_REPLICAS: str(count)}, notes


def _enforcement(kind: str, hashed: bool) -> list[Note]:
    """The webhook keys its counter on the pod's ``pod-template-hash`` label whatever the
    owner (``pod_counter.go:30-36``): Deployment-made ReplicaSets stamp it, and a template that
    carries it itself is counted too; a pod with no owner is rejected. The engine writes no
    cap on the other kinds (a rung moves them whole: :mod:`tfpolicy.stages.canary`), so the
    warning below is for a caller that asks for one there anyway."""
    if kind == "Pod":
        message = ("the webhook rejects a pod with enabled-replicas and no controller: "
                   "it counts taken-over pods on the pod's owner")
        return [Note(Severity.ERROR, "enabled-replicas-bare-pod", message, _PATH)]
    if hashed:  # its pods carry pod-template-hash (tfpolicy.workloads.revisions)
        return []
    label = "rollouts-pod-template-hash" if kind == "Rollout" else "no pod-template-hash"
    message = (f"enabled-replicas is written but not enforced on a {kind}: its pods carry "
               f"{label}, and the webhook counts per pod-template-hash")
    return [Note(Severity.WARNING, "enabled-replicas-not-enforced", message, _PATH)]
