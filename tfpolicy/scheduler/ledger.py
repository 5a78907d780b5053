"""The ledger: per-GPU limiter accounting, the one mutable state (the allocator's
Commit, NexusGPU/tensor-fusion internal/gpuallocator/gpuallocator.go:1311).

`available` is capacity minus committed *requests*; limits are summed for the
oversubscription report and never block anything (filter/resource_filter.go:24
filters requests only). Shared
pods take a completely idle GPU and leave it at 0/0; releasing one restores
the capacity. Device-plugin pods hold whole GPUs outside TensorFusion's
accounting (its `available` does not move); the allocator treats such a GPU
as `usedBy: nvidia-device-plugin`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tfpolicy.records import Record
from tfpolicy.scheduler.model import (
    DEFAULT_SETTINGS,
    GPU,
    Inventory,
    Isolation,
    IsolationPolicy,
    PodKey,
    PodKind,
    PodRequest,
    Pool,
    SchedulerSettings,
)
from tfpolicy.scheduler.scoring import TFLOPS_WEIGHT, VRAM_WEIGHT, gpu_score, tflops_for_percent


class LedgerError(ValueError):
    """A reservation that would over-allocate a GPU or break a ledger rule."""


class GpuState:
    """Mutable accounting of one GPU; the allocators read it, only the ledger writes."""

    __slots__ = ("active", "avail_tflops", "avail_vram", "dp_pod", "eligible", "gpu",
                 "limit_tflops", "limit_vram", "policy", "score_avail", "score_used", "tf_pods",
                 "weights")

    def __init__(self, gpu: GPU, weights: tuple[int, int] = (VRAM_WEIGHT, TFLOPS_WEIGHT),
                 policy: IsolationPolicy = IsolationPolicy.DYNAMIC) -> None:
        self.gpu = gpu
        self.weights = weights
        self.policy = policy  # what the GPU advertises (`GPU.status.isolationPolicy`)
        self.eligible = True  # set by the ledger: may the scheduler's policy use it at all?
        self.avail_tflops = gpu.tflops - gpu.external_tflops
        self.avail_vram = gpu.vram - gpu.external_vram
        self.limit_tflops = gpu.external_tflops
        self.limit_vram = gpu.external_vram
        self.tf_pods: set[PodKey] = set()
        self.dp_pod: PodKey | None = None
        self.active: Isolation | None = gpu.active_isolation  # Dynamic lock: gpuallocator.go:541
        self.refresh()

    def refresh(self) -> None:
        """Cache both scores: they change only when this GPU's accounting does."""
        g, w = self.gpu, self.weights
        self.score_used = gpu_score(self.avail_tflops, g.tflops, self.avail_vram, g.vram, True, w)
        self.score_avail = gpu_score(self.avail_tflops, g.tflops, self.avail_vram, g.vram, False, w)

    @property
    def idle(self) -> bool:
        """Nothing committed: what shared and device-plugin pods need
        (internal/gpuallocator/filter/shared_whole_gpu_filter.go:19)."""
        g = self.gpu
        return self.avail_tflops == g.tflops and self.avail_vram == g.vram

    @property
    def free_whole(self) -> bool:
        """Nobody on it, not even a partition recorded outside the simulation."""
        return self.dp_pod is None and not self.tf_pods and self.idle and not self.gpu.partitions


class Allocation(Record):
    """One pod's committed share; the per-GPU tuples follow ``gpus``."""

    pod: PodRequest
    node: str
    gpus: tuple[str, ...]
    tflops: tuple[int, ...]
    vram: tuple[int, ...]
    tflops_limit: tuple[int, ...]
    vram_limit: tuple[int, ...]


def shares(pod: PodRequest, gpu: GPU) -> tuple[int, int, int, int]:
    """(TFLOPS request, VRAM request, TFLOPS limit, VRAM limit) of ``pod`` on ``gpu``.

    Shared holds the whole card; a limit below its request reports as the
    request (the webhook defaults request from limit, never the reverse).
    """
    if pod.kind is PodKind.DEVICE_PLUGIN or pod.isolation is Isolation.SHARED:
        return gpu.tflops, gpu.vram, gpu.tflops, gpu.vram
    tflops = pod.tflops_request or tflops_for_percent(pod.percent_request, gpu.tflops)
    limit = pod.tflops_limit or tflops_for_percent(pod.percent_limit, gpu.tflops)
    return tflops, pod.vram_request, max(limit, tflops), max(pod.vram_limit, pod.vram_request)


class Ledger:
    """Per-GPU accounting plus node versions that let indexes invalidate lazily.

    ``settings``: the operator's configuration; without it, the inventory's,
    else the Helm chart defaults.
    """

    def __init__(self, inventory: Inventory, settings: SchedulerSettings | None = None) -> None:
        self.inventory = inventory
        self.settings = settings or inventory.settings or DEFAULT_SETTINGS
        weights = (self.settings.vram_weight, self.settings.tflops_weight)
        self.pools: dict[str, Pool] = {p.name: p for p in inventory.pools}
        self.gpus: dict[str, GpuState] = {
            g.name: GpuState(g, weights, self._advertised(g)) for g in inventory.gpus}
        for state in self.gpus.values():
            state.eligible = self._eligible(state)
        self.node_gpus: dict[str, tuple[GpuState, ...]] = {
            n.name: tuple(self.gpus[g] for g in n.gpus) for n in inventory.nodes}
        self._allocations: dict[PodKey, Allocation] = {}
        self._workers: dict[str, int] = dict.fromkeys(self.node_gpus, 0)
        self._versions: dict[str, int] = dict.fromkeys(self.node_gpus, 0)
        self._listeners: list[Callable[[str], None]] = []
        self.cordoned: set[str] = set()  # nodes being drained: no new pod lands there

    def _advertised(self, gpu: GPU) -> IsolationPolicy:
        pool = self.pools.get(gpu.pool) if gpu.pool else None
        return (pool.isolation_policy if pool else None) or self.settings.isolation_policy

    def _eligible(self, state: GpuState) -> bool:
        """The GPU advertises the scheduler's policy and, under Dynamic, is not in
        isolation conflict (`isGPUIsolationCompatible`, `gpuallocator.go:713-735`)."""
        policy = self.settings.isolation_policy
        conflict = policy is IsolationPolicy.DYNAMIC and state.gpu.isolation_conflict
        return state.policy is policy and not conflict

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(node)`` after every change on ``node``."""
        self._listeners.append(listener)

    def cordon(self, node: str, on: bool = True) -> None:
        """Mark ``node`` unschedulable (or schedulable again), as `kubectl cordon` does."""
        (self.cordoned.add if on else self.cordoned.discard)(node)
        self._changed(node)

    def version(self, node: str) -> int:
        return self._versions[node]

    def workers(self, node: str) -> int:
        """TensorFusion pods on ``node`` (`maxWorkerPerNode` counts them,
        gpuallocator.go:1277)."""
        return self._workers[node]

    def workers_full(self, node: str, pool: Pool) -> bool:
        """Has ``node`` reached `maxWorkerPerNode` (the scheduler's, else the pool's)?"""
        return self._workers[node] >= (self.settings.max_workers_per_node
                                       or pool.max_workers_per_node)

    def native_ok(self, node: str) -> bool:
        """Under progressive migration, may a device-plugin pod go to ``node``?

        Only nodes the allocator knows (they have GPU objects: here, a GPU in a
        pool) and where no TensorFusion worker runs (`ListNonUsingNodes`,
        `gpuallocator.go:1992-2007`). Requests committed outside the simulation
        count as workers.
        """
        if not self.settings.progressive_migration:
            return True
        states = self.node_gpus[node]
        return (self._workers[node] == 0 and any(s.gpu.pool is not None for s in states)
                and not any(s.gpu.external_tflops or s.gpu.external_vram for s in states))

    def allocation(self, key: PodKey) -> Allocation | None:
        return self._allocations.get(key)

    def allocations(self) -> tuple[Allocation, ...]:
        return tuple(self._allocations[k] for k in sorted(self._allocations))

    def reserve(self, pod: PodRequest, gpus: Sequence[str]) -> Allocation:
        """Commit ``pod`` on ``gpus`` (gpuallocator.go:1311 Commit); raise LedgerError if it
        cannot."""
        key = pod.key
        states = self._check(pod, key, gpus)
        amounts = [shares(pod, s.gpu) for s in states]
        for state, (tflops, vram, _, _) in zip(states, amounts, strict=True):
            _check_fits(pod, state, tflops, vram)
        node = states[0].gpu.node
        alloc = Allocation(pod, node, tuple(gpus), *_columns(amounts))
        for state, amount in zip(states, amounts, strict=True):
            _commit(pod, state, key, amount)
        self._allocations[key] = alloc
        self._workers[node] += pod.kind is PodKind.TENSOR_FUSION
        self._changed(node)
        return alloc

    def release(self, key: PodKey) -> Allocation | None:
        """Give back what ``key`` holds (gpuallocator.go:1730 Dealloc); None when it holds
        nothing."""
        alloc = self._allocations.pop(key, None)
        if alloc is None:
            return None
        for i, name in enumerate(alloc.gpus):
            _uncommit(alloc, i, self.gpus[name])
        self._workers[alloc.node] -= alloc.pod.kind is PodKind.TENSOR_FUSION
        self._changed(alloc.node)
        return alloc

    def _check(self, pod: PodRequest, key: PodKey, gpus: Sequence[str]) -> list[GpuState]:
        if key in self._allocations:
            raise LedgerError(f"pod {pod.namespace}/{pod.name} is already placed")
        states = [self.gpus[name] for name in gpus]
        if len(states) != pod.count or len(set(gpus)) != len(gpus):
            raise LedgerError(f"pod {pod.name} needs {pod.count} distinct GPUs")
        if len(states) != 1 and len({s.gpu.node for s in states}) != 1:
            raise LedgerError(f"pod {pod.name}: its GPUs are not all on one node")
        return states

    def _changed(self, node: str) -> None:
        self._versions[node] += 1
        for listener in self._listeners:
            listener(node)


def _columns(amounts: list[tuple[int, int, int, int]]) -> tuple[tuple[int, ...], ...]:
    """Per-GPU amounts as four per-amount tuples (TFLOPS, VRAM, their limits)."""
    return tuple(zip(*amounts, strict=True)) if amounts else ((), (), (), ())


def _check_fits(pod: PodRequest, state: GpuState, tflops: int, vram: int) -> None:
    whole = pod.kind is PodKind.DEVICE_PLUGIN or pod.isolation is Isolation.SHARED
    if pod.kind is PodKind.DEVICE_PLUGIN and not state.free_whole:
        raise LedgerError(f"GPU {state.gpu.name} is not free for a device-plugin pod")
    if state.dp_pod is not None:
        raise LedgerError(f"GPU {state.gpu.name} is held by a device-plugin pod")
    if whole and (not state.idle or state.gpu.partitions):
        raise LedgerError(f"GPU {state.gpu.name} is not idle for a shared pod")
    if state.avail_tflops < tflops or state.avail_vram < vram:
        raise LedgerError(f"GPU {state.gpu.name} has too little left for pod {pod.name}")


def _commit(pod: PodRequest, state: GpuState, key: PodKey,
            amount: tuple[int, int, int, int]) -> None:
    tflops, vram, tflops_limit, vram_limit = amount
    if pod.kind is PodKind.DEVICE_PLUGIN:
        state.dp_pod = key  # outside TensorFusion's accounting
        return
    if state.active is None:
        state.active = pod.isolation
    state.tf_pods.add(key)
    if pod.isolation is Isolation.SHARED:
        state.avail_tflops, state.avail_vram = 0, 0  # count-only, whole card (shared)
    else:
        state.avail_tflops -= tflops
        state.avail_vram -= vram
    state.limit_tflops += tflops_limit
    state.limit_vram += vram_limit
    state.refresh()


def _uncommit(alloc: Allocation, i: int, state: GpuState) -> None:
    pod = alloc.pod
    if pod.kind is PodKind.DEVICE_PLUGIN:
        state.dp_pod = None
        return
    state.tf_pods.discard(pod.key)
    if not state.tf_pods:
        state.active = state.gpu.active_isolation
    if pod.isolation is Isolation.SHARED:
        state.avail_tflops, state.avail_vram = state.gpu.tflops, state.gpu.vram
    else:
        state.avail_tflops += alloc.tflops[i]
        state.avail_vram += alloc.vram[i]
    state.limit_tflops -= alloc.tflops_limit[i]
    state.limit_vram -= alloc.vram_limit[i]
    state.refresh()
