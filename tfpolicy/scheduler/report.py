"""What a plan reports from a ledger: who uses which GPUs, pool totals, limit oversubscription.

Oversubscription follows the GPUNode/GPUPool virtual capacity math (NexusGPU/tensor-fusion
internal/gpuallocator/node_capacity.go:185-192):
TFLOPS limits against capacity × `tflopsOversellRatio` / 100; VRAM limits
against VRAM + host expansion (`int(disk × vramExpandToHostDisk / 100) +
int(ram × vramExpandToHostMem / 100)` per node; per GPU, the node's expansion
split evenly over its GPUs of the pool). A pool without an oversubscription
config has virtual = physical. Limits never block placement (only requests are
filtered: internal/gpuallocator/filter/resource_filter.go:24); this is
a report only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from enum import IntEnum

from tfpolicy.records import Record
from tfpolicy.scheduler.ledger import GpuState, Ledger
from tfpolicy.scheduler.model import Node, Pool


class GpuUser(IntEnum):
    IDLE = 0
    TENSOR_FUSION = 1
    DEVICE_PLUGIN = 2


def user_of(state: GpuState) -> GpuUser:
    """Device-plugin holder, else any TensorFusion commitment (also external, and a
    recorded partition), else idle."""
    if state.dp_pod is not None:
        return GpuUser.DEVICE_PLUGIN
    if state.tf_pods or not state.idle or state.gpu.partitions:
        return GpuUser.TENSOR_FUSION
    return GpuUser.IDLE


class UsageCount(Record):
    """GPUs (and their cost, micro-USD/h) per user, for one pool (None: outside pools)."""

    pool: str | None
    idle: int = 0
    tensor_fusion: int = 0
    device_plugin: int = 0
    idle_cost: int = 0
    tensor_fusion_cost: int = 0
    device_plugin_cost: int = 0


class Usage(Record):
    total: UsageCount
    pools: tuple[UsageCount, ...]


def usage(ledger: Ledger) -> Usage:
    counts: dict[str | None, list[int]] = defaultdict(lambda: [0] * 6)
    for state in ledger.gpus.values():
        user = user_of(state)
        for key in (state.gpu.pool, "\0total"):
            counts[key][user] += 1
            counts[key][3 + user] += state.gpu.cost
    total = UsageCount(None, *counts.pop("\0total", [0] * 6))
    ordered = sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
    return Usage(total, tuple(UsageCount(pool, *c) for pool, c in ordered))


class PoolUsage(Record):
    """One pool's capacity, committed requests, summed limits and virtual capacity."""

    pool: str
    gpus: int
    tflops: int
    vram: int
    requested_tflops: int
    requested_vram: int
    limit_tflops: int
    limit_vram: int
    virtual_tflops: int
    virtual_vram: int

    @property
    def oversubscribed(self) -> bool:
        return self.limit_tflops > self.virtual_tflops or self.limit_vram > self.virtual_vram


class GpuLimits(Record):
    """A GPU whose summed limits exceed its virtual capacity."""

    gpu: str
    node: str
    pool: str
    limit_tflops: int
    virtual_tflops: int
    limit_vram: int
    virtual_vram: int


def pool_usage(ledger: Ledger) -> tuple[PoolUsage, ...]:
    return tuple(_pool_usage(ledger, pool) for pool in ledger.inventory.pools)


def _pool_usage(ledger: Ledger, pool: Pool) -> PoolUsage:
    states = [s for s in ledger.gpus.values() if s.gpu.pool == pool.name]
    tflops, vram = sum(s.gpu.tflops for s in states), sum(s.gpu.vram for s in states)
    expansion = sum(_expansion(pool, n) for n in ledger.inventory.nodes
                    if any(ledger.gpus[g].gpu.pool == pool.name for g in n.gpus))
    return PoolUsage(
        pool.name, len(states), tflops, vram,
        sum(s.gpu.tflops - s.avail_tflops for s in states),
        sum(s.gpu.vram - s.avail_vram for s in states),
        sum(s.limit_tflops for s in states), sum(s.limit_vram for s in states),
        _oversold(pool, tflops), vram + expansion,
    )


def oversubscribed_gpus(ledger: Ledger) -> tuple[GpuLimits, ...]:
    """Per GPU, limits beyond virtual capacity; sorted by GPU name."""
    found = []
    for node in ledger.inventory.nodes:
        states = ledger.node_gpus[node.name]
        # Read per step on every GPU of the fleet: count a node's GPUs per pool once.
        peers = Counter(s.gpu.pool for s in states)
        for state in states:
            pool = ledger.pools.get(state.gpu.pool or "")
            if pool is not None:
                found.extend(_gpu_limits(node, pool, state, peers[pool.name]))
    return tuple(sorted(found, key=lambda g: g.gpu))


def _gpu_limits(node: Node, pool: Pool, state: GpuState, peers: int) -> list[GpuLimits]:
    virtual_tflops = _oversold(pool, state.gpu.tflops)
    virtual_vram = state.gpu.vram + _expansion(pool, node) // peers
    if state.limit_tflops <= virtual_tflops and state.limit_vram <= virtual_vram:
        return []
    return [GpuLimits(state.gpu.name, node.name, pool.name, state.limit_tflops, virtual_tflops,
                      state.limit_vram, virtual_vram)]


def _oversold(pool: Pool, tflops: int) -> int:
    return tflops if pool.tflops_oversell is None else tflops * pool.tflops_oversell // 100


def _expansion(pool: Pool, node: Node) -> int:
    if pool.tflops_oversell is None:
        return 0
    return (node.disk * pool.vram_expand_to_host_disk // 100
            + node.ram * pool.vram_expand_to_host_mem // 100)
