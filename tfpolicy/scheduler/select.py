"""Upstream's other placement path: `Filter` then `SelectGPUs` (NexusGPU/tensor-fusion
internal/gpuallocator/strategy_default.go:83).

The scheduler plugin ranks nodes by the *mean* GPU score (`rules.node_score`);
the allocator's own `Alloc` and the defragmenter instead call the strategy's
`SelectGPUs` (`DefaultGPUSelector`, `strategy_default.go:25-75`), which ranks
nodes by the *sum* of node-level scores over every GPU of the node, with no
isolation or Pending adjustment, then takes the best-scored GPUs within the
first node that has enough candidates. Ties are broken by name here (Go's
map order is random there).
"""

from __future__ import annotations

from tfpolicy.scheduler.contract import Choice
from tfpolicy.scheduler.ledger import GpuState, Ledger
from tfpolicy.scheduler.model import Placement, PodRequest, Pool
from tfpolicy.scheduler.rules import gpu_reason, pod_reason, resolve_pool


def candidates(ledger: Ledger, pod: PodRequest) -> dict[str, list[GpuState]]:
    """GPUs left by the filter chain (gpuallocator.go:637-697), per node, in name order."""
    pool = resolve_pool(ledger, pod)
    if pool is None or pod_reason(ledger, pod) is not None:
        return {}
    policy = ledger.settings.isolation_policy
    found: dict[str, list[GpuState]] = {}
    for node, states in sorted(ledger.node_gpus.items()):
        valid = [s for s in states if gpu_reason(pool, s, pod, policy) is None]
        if len(valid) >= max(pod.count, 1) and not ledger.workers_full(node, pool):
            found[node] = valid
    return found


def select_gpus(ledger: Ledger, pod: PodRequest) -> Choice | None:
    """`SelectGPUs`: the node with the highest score sum, its best ``count`` GPUs."""
    pool = resolve_pool(ledger, pod)
    found = candidates(ledger, pod)
    if pool is None or not found:
        return None
    for_node = pool.placement is not Placement.LOW_LOAD_FIRST
    node = min(found, key=lambda n: (-_sum(ledger.node_gpus[n], for_node), n))
    return Choice(node, _best(found[node], pool, pod.count))


def _sum(states: tuple[GpuState, ...], used: bool) -> int:
    return sum(s.score_used if used else s.score_avail for s in states)


def _best(valid: list[GpuState], pool: Pool, count: int) -> tuple[str, ...]:
    used = pool.placement is Placement.COMPACT_FIRST
    ranked = sorted(valid, key=lambda s: (-(s.score_used if used else s.score_avail), s.gpu.name))
    return tuple(s.gpu.name for s in ranked[:count])
