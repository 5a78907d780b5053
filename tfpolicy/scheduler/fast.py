"""The fast allocator: the oracle's answers without scanning every node per pod.

Pods of one workload ask for the same thing, so requests fall into a few
*shapes* (pool, isolation, count, requests, model, vendor, indices). Each shape keeps a
heap of ``(-node score, node, node version)``. A ledger change on a node bumps
its version and marks the node dirty for each shape of its pools; the next
query of a shape first pushes one fresh entry per dirty node (a node that
changed ten times between two queries is scored once), then pops stale
entries and nodes the shape does not fit (a node stays unfit until it
changes again, which marks it dirty again). Every pushed entry is popped at
most once, so the work is linear in changes × shapes. Unused shapes are
dropped and rebuilt on demand; heaps are compacted when stale entries pile up.

Device-plugin pods use buckets per number of free matching whole GPUs
(fewest free first, then name: the oracle's bin-packing order).
"""

from __future__ import annotations

import heapq

from tfpolicy.scheduler.contract import Choice
from tfpolicy.scheduler.diagnosis import Unschedulable, diagnose
from tfpolicy.scheduler.ledger import Ledger
from tfpolicy.scheduler.model import Isolation, PodRequest, Pool
from tfpolicy.scheduler.rules import (
    is_device_plugin,
    node_score,
    pick_gpus,
    pick_on_node,
    pick_whole_gpus,
    pod_reason,
    resolve_pool,
)

Entry = tuple[int, str, int]
ShapeKey = tuple[str, Isolation, int, int, int, int, str | None, str | None, tuple[int, ...]]
WholeKey = tuple[str | None, str | None]


def shape_of(pool: Pool, pod: PodRequest) -> ShapeKey:
    """Everything that decides feasibility and score; shared pods are count-only."""
    if pod.isolation is Isolation.SHARED:
        return (pool.name, pod.isolation, pod.count, 0, 0, 0, pod.gpu_model, pod.vendor,
                pod.gpu_indices)
    return (pool.name, pod.isolation, pod.count, pod.tflops_request, pod.percent_request,
            pod.vram_request, pod.gpu_model, pod.vendor, pod.gpu_indices)


class _Shape:
    __slots__ = ("dirty", "heap", "last_query", "pod", "pool")

    def __init__(self, pool: Pool, pod: PodRequest, heap: list[Entry], tick: int) -> None:
        self.pool, self.pod, self.heap, self.last_query = pool, pod, heap, tick
        self.dirty: set[str] = set()  # nodes changed since this shape's last query


class FastAllocator:
    """Indexed allocator; subscribes to its ledger's changes."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._pool_nodes: dict[str, list[str]] = {p: [] for p in ledger.pools}
        self._node_pools: dict[str, list[str]] = {}
        for node, states in ledger.node_gpus.items():
            pools = sorted({s.gpu.pool for s in states if s.gpu.pool in ledger.pools} - {None})
            self._node_pools[node] = [str(p) for p in pools]
            for pool in self._node_pools[node]:
                self._pool_nodes[pool].append(node)
        self._shapes: dict[str, dict[ShapeKey, _Shape]] = {p: {} for p in ledger.pools}
        self._whole = _WholeIndex(ledger)
        self._tick = 0
        ledger.subscribe(self._changed)

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    def choose(self, pod: PodRequest) -> Choice | Unschedulable:
        found = self.find(pod)
        return found if found is not None else diagnose(self._ledger, pod)

    def find(self, pod: PodRequest) -> Choice | None:
        """`choose` without the diagnosis, which scans every GPU: for callers that retry."""
        if pod.node is not None:
            gpus = pick_on_node(self._ledger, pod, pod.node)
            return None if gpus is None else Choice(pod.node, gpus)
        return self._whole.choose(pod) if is_device_plugin(pod) else self._choose_tf(pod)

    def _choose_tf(self, pod: PodRequest) -> Choice | None:
        pool = resolve_pool(self._ledger, pod)
        if pool is None or pod_reason(self._ledger, pod) is not None:
            return None
        shape = self._shape(pool, pod)
        self._refresh(shape)
        heap, version = shape.heap, self._ledger.version
        while heap:
            _, node, seen = heap[0]
            gpus = pick_gpus(self._ledger, node, pool, pod) if seen == version(node) else None
            if gpus is not None:
                return Choice(node, gpus)
            heapq.heappop(heap)  # stale, or unfit until the node changes again
        return None

    def _shape(self, pool: Pool, pod: PodRequest) -> _Shape:
        shapes = self._shapes[pool.name]
        key = shape_of(pool, pod)
        shape = shapes.get(key)
        if shape is None:
            heap = [self._entry(pool, pod.isolation, n) for n in self._pool_nodes[pool.name]]
            heapq.heapify(heap)
            shape = shapes[key] = _Shape(pool, pod, heap, self._tick)
        shape.last_query = self._tick
        return shape

    def _entry(self, pool: Pool, isolation: Isolation, node: str) -> Entry:
        score = node_score(self._ledger, node, pool, isolation)
        return (-score, node, self._ledger.version(node))

    def _refresh(self, shape: _Shape) -> None:
        """Push the nodes changed since the last query, scored as they are now."""
        for node in shape.dirty:
            heapq.heappush(shape.heap, self._entry(shape.pool, shape.pod.isolation, node))
        shape.dirty.clear()
        if len(shape.heap) > 2 * len(self._pool_nodes[shape.pool.name]) + 16:
            shape.heap = self._compact(shape.heap)

    def _changed(self, node: str) -> None:
        self._tick += 1
        self._whole.changed(node)
        for pool_name in self._node_pools[node]:
            for shape in self._shapes[pool_name].values():
                shape.dirty.add(node)
        if self._tick % 1024 == 0:
            self._evict()

    def _compact(self, heap: list[Entry]) -> list[Entry]:
        version = self._ledger.version
        fresh = [e for e in heap if e[2] == version(e[1])]
        heapq.heapify(fresh)
        return fresh

    def _evict(self) -> None:
        """Drop shapes not asked for since twice their pool's node count of changes:
        keeping them costs one push per change, rebuilding one entry per node."""
        for pool_name, shapes in self._shapes.items():
            horizon = self._tick - 2 * len(self._pool_nodes[pool_name]) - 1024
            for key in [k for k, s in shapes.items() if s.last_query < horizon]:
                del shapes[key]


class _WholeIndex:
    """Per (model, vendor) filter: heaps of ``(node, version)`` per free-GPU count."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._buckets: dict[WholeKey, dict[int, list[tuple[str, int]]]] = {}
        self._sizes: dict[WholeKey, int] = {}
        self._dirty: dict[WholeKey, set[str]] = {}  # per filter, nodes changed since its query

    def choose(self, pod: PodRequest) -> Choice | None:
        key = (pod.gpu_model, pod.vendor)
        buckets = self._buckets[key] if key in self._buckets else self._build(key)
        self._refresh(key, buckets)
        buckets = self._buckets[key]
        version = self._ledger.version
        for free in sorted(k for k in buckets if k >= pod.count):
            bucket = buckets[free]
            while bucket and bucket[0][1] != version(bucket[0][0]):
                heapq.heappop(bucket)
            if bucket:
                gpus = pick_whole_gpus(self._ledger, bucket[0][0], pod)
                return Choice(bucket[0][0], gpus) if gpus is not None else None
        return None

    def changed(self, node: str) -> None:
        for dirty in self._dirty.values():
            dirty.add(node)

    def _refresh(self, key: WholeKey, buckets: dict[int, list[tuple[str, int]]]) -> None:
        dirty = self._dirty[key]
        for node in dirty:
            self._push(key, buckets, node)
        dirty.clear()
        if self._sizes[key] > 2 * len(self._ledger.node_gpus) + 16:
            self._build(key)

    def _build(self, key: WholeKey) -> dict[int, list[tuple[str, int]]]:
        self._buckets[key], self._sizes[key], self._dirty[key] = {}, 0, set()
        for node in self._ledger.node_gpus:
            self._push(key, self._buckets[key], node)
        return self._buckets[key]

    def _push(self, key: WholeKey, buckets: dict[int, list[tuple[str, int]]], node: str) -> None:
        model, vendor = key
        if node in self._ledger.cordoned or not self._ledger.native_ok(node):
            return  # pushed again when it is uncordoned or its workers leave
        free = sum(s.free_whole and (model is None or s.gpu.model == model)
                   and (vendor is None or s.gpu.vendor == vendor)
                   for s in self._ledger.node_gpus[node])
        if free:
            heapq.heappush(buckets.setdefault(free, []), (node, self._ledger.version(node)))
            self._sizes[key] += 1
