"""The slow, obviously correct allocator: score every node, keep the best.

It is the specification the fast allocator is tested against (tests/scheduler).
Best node = highest node score (NexusGPU/tensor-fusion
internal/gpuallocator/gpuallocator.go:2108), ties by node name; device-plugin pods
take the node with the fewest free matching whole GPUs that still fits them
(most allocated first, as kube-scheduler's bin-packing scores), ties by name.
"""

from __future__ import annotations

from tfpolicy.scheduler.contract import Choice
from tfpolicy.scheduler.diagnosis import Unschedulable, diagnose
from tfpolicy.scheduler.ledger import Ledger
from tfpolicy.scheduler.model import PodRequest
from tfpolicy.scheduler.rules import (
    dp_reason,
    is_device_plugin,
    node_score,
    pick_gpus,
    pick_on_node,
    pick_whole_gpus,
    pod_reason,
    resolve_pool,
)


class OracleAllocator:
    """Scans every node of the inventory for every pod."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    def choose(self, pod: PodRequest) -> Choice | Unschedulable:
        if pod.node is not None:
            gpus = pick_on_node(self._ledger, pod, pod.node)
            return Choice(pod.node, gpus) if gpus is not None else diagnose(self._ledger, pod)
        best = self._whole(pod) if is_device_plugin(pod) else self._shared(pod)
        return best if best is not None else diagnose(self._ledger, pod)

    def _shared(self, pod: PodRequest) -> Choice | None:
        pool = resolve_pool(self._ledger, pod)
        if pool is None or pod_reason(self._ledger, pod) is not None:
            return None
        ranked: list[tuple[int, str, tuple[str, ...]]] = []
        for node in sorted(self._ledger.node_gpus):
            gpus = pick_gpus(self._ledger, node, pool, pod)
            if gpus is not None:
                score = node_score(self._ledger, node, pool, pod.isolation)
                ranked.append((-score, node, gpus))
        return Choice(min(ranked)[1], min(ranked)[2]) if ranked else None

    def _whole(self, pod: PodRequest) -> Choice | None:
        ranked: list[tuple[int, str, tuple[str, ...]]] = []
        for node, states in sorted(self._ledger.node_gpus.items()):
            gpus = pick_whole_gpus(self._ledger, node, pod)
            if gpus is not None:
                free = sum(dp_reason(s, pod) is None for s in states)
                ranked.append((free, node, gpus))
        return Choice(min(ranked)[1], min(ranked)[2]) if ranked else None
