"""How many pods of a workload the webhook takes over under ``enabled-replicas``
(NexusGPU/tensor-fusion internal/webhook/v1/pod_counter.go:24-75).

The counter lives on the pod's direct owner under a key built from the
``pod-template-hash`` label. Only Deployment-made ReplicaSets stamp it; for
every other owner the key falls back to a hash of the pod JSON, which differs
between the read and the increment, so the count never grows and the cap is
not enforced (pod_counter.go:24-38) — except that a cap of 0 or less still admits nothing.
"""

from __future__ import annotations


def taken_over(replicas: int, cap: int | None, *, pod_template_hash: bool) -> int:
    """Pods (of ``replicas``) that become TensorFusion pods; ``cap=None`` = no annotation."""
    replicas = max(replicas, 0)
    if cap is None:
        return replicas
    if cap <= 0:
        return 0
    return min(cap, replicas) if pod_template_hash else replicas


def over_cap(taken: int, cap: int | None, *, pod_template_hash: bool) -> bool:
    """Whether the next pod is admitted unmutated, given ``taken`` pods already counted."""
    if cap is None:
        return False
    count = taken if pod_template_hash else 0  # the fallback key always reads 0
    return count >= cap
