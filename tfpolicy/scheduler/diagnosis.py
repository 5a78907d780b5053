"""Why a pod does not fit: a FitError-like count of reasons per node and per GPU.

A node is charged to the filter that removed its last candidate GPU (the
chain runs in the allocator's order, NexusGPU/tensor-fusion
internal/gpuallocator/gpuallocator.go:637-697, so that is the latest stage
any of its GPUs reached); a node left with some but fewer than `gpu-count` GPUs is charged to
the same-node filter. Reasons are sorted by count, then text, so the message
is deterministic: ``0/16 nodes are available: 12 insufficient VRAM, 4 GPU
model mismatch.``
"""

from __future__ import annotations

from collections import Counter

from tfpolicy.records import Record
from tfpolicy.scheduler.ledger import GpuState, Ledger
from tfpolicy.scheduler.model import PodKey, PodRequest, Pool
from tfpolicy.scheduler.rules import (
    REASON_TEXT,
    Reason,
    dp_reason,
    gpu_reason,
    is_device_plugin,
    native_node_reason,
    pod_reason,
    resolve_pool,
)


class Unschedulable(Record):
    """The diagnosis of a pod no node can take."""

    pod: PodKey
    nodes: int
    available: int
    node_reasons: tuple[tuple[Reason, int], ...]
    gpus: int
    gpu_reasons: tuple[tuple[Reason, int], ...]

    @property
    def message(self) -> str:
        parts = ", ".join(f"{n} {REASON_TEXT[r]}" for r, n in self.node_reasons)
        return f"{self.available}/{self.nodes} nodes are available: {parts}."


def diagnose(ledger: Ledger, pod: PodRequest) -> Unschedulable:
    """Run every filter on every node and GPU and count what eliminated them."""
    pool = None if is_device_plugin(pod) else resolve_pool(ledger, pod)
    nodes: Counter[Reason] = Counter()
    gpus: Counter[Reason] = Counter()
    available = 0
    for node, states in ledger.node_gpus.items():
        if pod.node is not None and node != pod.node:
            nodes[Reason.NODE_AFFINITY] += 1  # filtered before any GPU is looked at
            continue
        reason = _node_reason(ledger, node, states, pod, pool, gpus)
        if reason is None:
            available += 1
        else:
            nodes[reason] += 1
    return Unschedulable(pod.key, len(ledger.node_gpus), available, _sorted(nodes),
                         sum(gpus.values()), _sorted(gpus))


def _node_reason(ledger: Ledger, node: str, states: tuple[GpuState, ...], pod: PodRequest,
                 pool: Pool | None, gpus: Counter[Reason]) -> Reason | None:
    early = _prefilter_reason(ledger, node, pod, pool)
    if early is not None:
        return early
    if is_device_plugin(pod):
        reasons = [dp_reason(s, pod) for s in states]
    else:
        assert pool is not None  # _prefilter_reason answers for a missing pool
        policy = ledger.settings.isolation_policy
        reasons = [gpu_reason(pool, s, pod, policy) for s in states if s.gpu.pool == pool.name]
        if not reasons:
            return Reason.NOT_IN_POOL
    gpus.update(r for r in reasons if r is not None)
    survivors = reasons.count(None)
    if survivors == 0:
        return max(r for r in reasons if r is not None)
    if survivors < pod.count:
        return Reason.GPU_BUSY if is_device_plugin(pod) else Reason.TOO_FEW_GPUS
    if pool is not None and ledger.workers_full(node, pool):
        return Reason.TOO_MANY_WORKERS
    return None


def _prefilter_reason(ledger: Ledger, node: str, pod: PodRequest,
                      pool: Pool | None) -> Reason | None:
    """What rules a node out before any GPU filter runs (PreFilter)."""
    if is_device_plugin(pod):
        return native_node_reason(ledger, node)
    return Reason.NOT_IN_POOL if pool is None else pod_reason(ledger, pod)


def _sorted(counts: Counter[Reason]) -> tuple[tuple[Reason, int], ...]:
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], REASON_TEXT[item[0]])))
