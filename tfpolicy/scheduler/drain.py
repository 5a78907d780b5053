"""Node consolidation: drain under-used nodes the way cluster-autoscaler's scale-down does.

Clouds bill nodes, not GPUs, so after the last step the plan asks which
nodes could go. Like cluster-autoscaler's scale-down simulation
(`cluster-autoscaler/simulator/cluster.go`, `FindNodesToRemove`): candidates
are tried from the least used; a node goes when every pod on it (daemon
pods excepted: they leave with the node) can be re-placed elsewhere
through the same scheduler and its filters, and when no PodDisruptionBudget
forbids evicting that many of a workload's pods at once. A drained node
stays cordoned, so later drains do not fill it again; a drain that fails
is undone exactly.

The lower bound, per pool, is what its pods request divided by its largest
node, rounded up, on each axis: GPUs, TFLOPS and VRAM requested. A GPU held
whole (device plugin, shared isolation) hosts nothing else, so the GPUs
needed are those plus the fractional requests over the pool's largest GPU.
No packing can use fewer nodes. Candidates are tried smallest node first
(by TFLOPS), then least used: what a small node holds fits in the spare room
of bigger ones more often than the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping

from tfpolicy.records import Record
from tfpolicy.scheduler.contract import Allocator, try_schedule
from tfpolicy.scheduler.ledger import Allocation, GpuState, Ledger
from tfpolicy.scheduler.model import Isolation


class Consolidation(Record):
    """Nodes in use before and after, those drained, and what that frees."""

    nodes_before: int
    nodes_after: int
    removed: tuple[str, ...]
    gpus_freed: int
    cost_freed: int  # micro-USD per hour: the node's price, else its GPUs'
    evictions: int
    lower_bound: int
    blocked_by_budget: int  # nodes kept because a PodDisruptionBudget allows too few evictions


def consolidate(allocator: Allocator, budgets: Mapping[str, int],
                daemons: frozenset[str] = frozenset()) -> Consolidation:
    """Drain what can be drained; ``budgets``: evictions a workload's PDB allows at once."""
    ledger = allocator.ledger
    before = _in_use(ledger)
    bound = lower_bound(ledger)
    # Empty nodes are the first a scale-down removes: never a destination for evicted pods.
    empty = sorted(set(ledger.node_gpus) - set(before))
    for node in empty:
        ledger.cordon(node)
    removed, evictions, blocked = [], 0, 0
    for node in sorted(before, key=lambda n: (_size(ledger, n), _load(ledger, n), n)):
        pods = [a for a in _on(ledger, node) if a.pod.workload not in daemons]
        if not _budget_ok(pods, budgets):
            blocked += 1
            continue
        if _drain(allocator, node, pods):
            removed.append(node)
            evictions += len(pods)
    after = _in_use(ledger)
    for node in empty:
        ledger.cordon(node, on=False)
    price = {n.name: n.cost for n in ledger.inventory.nodes}
    return Consolidation(len(before), len(after), tuple(removed),
                         sum(len(ledger.node_gpus[n]) for n in removed),
                         sum(price.get(n) or _gpu_cost(ledger, n) for n in removed), evictions,
                         bound, blocked)


def _in_use(ledger: Ledger) -> list[str]:
    return [n for n, states in ledger.node_gpus.items() if any(not _free(s) for s in states)]


def _free(state: GpuState) -> bool:
    return state.free_whole and not state.gpu.external_tflops and not state.gpu.external_vram


def _load(ledger: Ledger, node: str) -> int:
    """Emptiest first: the GPUs' worth its pods request (per GPU, the larger of the TFLOPS
    and VRAM shares, in thousandths), so sparse fractional GPUs count for little."""
    return sum(_share(s) for s in ledger.node_gpus[node])


def _share(state: GpuState) -> int:
    if state.dp_pod is not None or (state.tf_pods and state.active is Isolation.SHARED):
        return 1000
    g = state.gpu
    return max((g.tflops - state.avail_tflops) * 1000 // max(g.tflops, 1),
               (g.vram - state.avail_vram) * 1000 // max(g.vram, 1))


def _on(ledger: Ledger, node: str) -> list[Allocation]:
    keys = sorted({k for s in ledger.node_gpus[node] for k in s.tf_pods}
                  | {s.dp_pod for s in ledger.node_gpus[node] if s.dp_pod is not None})
    found = [ledger.allocation(k) for k in keys]
    return [a for a in found if a is not None]


def _budget_ok(pods: list[Allocation], budgets: Mapping[str, int]) -> bool:
    counts: dict[str, int] = {}
    for alloc in pods:
        counts[alloc.pod.workload] = counts.get(alloc.pod.workload, 0) + 1
    return all(n <= budgets.get(w, n) for w, n in counts.items())


def _drain(allocator: Allocator, node: str, pods: list[Allocation]) -> bool:
    """Cordon, evict, re-place the biggest first; undo everything when one does not fit."""
    ledger = allocator.ledger
    if not all(s.gpu.external_tflops == 0 == s.gpu.external_vram for s in ledger.node_gpus[node]):
        return False  # committed outside the simulation: not ours to move
    ledger.cordon(node)
    for alloc in pods:
        ledger.release(alloc.pod.key)
    moved: list[Allocation] = []
    for alloc in sorted(pods, key=lambda a: (-a.pod.count, -sum(a.tflops), a.pod.key)):
        placed = try_schedule(allocator, alloc.pod)
        if placed is None:
            for done in moved:
                ledger.release(done.pod.key)
            for old in pods:
                ledger.reserve(old.pod, old.gpus)
            ledger.cordon(node, on=False)
            return False
        moved.append(placed)
    return True


def _gpu_cost(ledger: Ledger, node: str) -> int:
    """A node with no price of its own costs what its GPUs do."""
    return sum(s.gpu.cost for s in ledger.node_gpus[node])


def lower_bound(ledger: Ledger) -> int:
    """Nodes no packing can go below, summed over pools (see the module docstring)."""
    demand: dict[str | None, list[int]] = {}
    largest: dict[str | None, list[int]] = {}
    for states in ledger.node_gpus.values():
        pool = states[0].gpu.pool if states else None
        size = [len(states), sum(s.gpu.tflops for s in states), sum(s.gpu.vram for s in states),
                max((s.gpu.tflops for s in states), default=0),
                max((s.gpu.vram for s in states), default=0)]
        largest[pool] = [max(a, b) for a, b in zip(largest.get(pool, [0] * 5), size, strict=True)]
        for state in states:
            used = _demand(state)
            demand[pool] = [a + b for a, b in zip(demand.get(pool, [0] * 5), used, strict=True)]
    return sum(_pool_bound(need, largest[pool]) for pool, need in demand.items())


def _pool_bound(need: list[int], big: list[int]) -> int:
    """GPUs held whole (device plugin, shared) host nothing else, so the GPUs a pool needs
    are those plus the fractional requests over its largest GPU; nodes by count and size."""
    whole, tflops, vram, soft_tflops, soft_vram = need
    per_node, node_tflops, node_vram, gpu_tflops, gpu_vram = big
    gpus = whole + max(_up(soft_tflops, gpu_tflops), _up(soft_vram, gpu_vram))
    return max(_up(gpus, per_node), _up(tflops, node_tflops), _up(vram, node_vram))


def _up(a: int, b: int) -> int:
    return -(-a // b) if b else 0


def _demand(state: GpuState) -> tuple[int, int, int, int, int]:
    """(whole GPUs, TFLOPS, VRAM, fractional TFLOPS, fractional VRAM) requested on it."""
    g = state.gpu
    if _free(state):
        return 0, 0, 0, 0, 0
    if state.dp_pod is not None or (state.tf_pods and state.active is Isolation.SHARED):
        return 1, g.tflops, g.vram, 0, 0
    tflops, vram = g.tflops - state.avail_tflops, g.vram - state.avail_vram
    return 0, tflops, vram, tflops, vram


def _size(ledger: Ledger, node: str) -> int:
    """A node's TFLOPS: smaller nodes are drained first."""
    return sum(s.gpu.tflops for s in ledger.node_gpus[node])
