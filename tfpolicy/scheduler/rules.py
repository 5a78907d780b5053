"""The allocator's filters and scores for one node, shared by every allocator
(NexusGPU/tensor-fusion internal/gpuallocator/gpuallocator.go:637 ``Filter``, 2108
``Score``).

Both the fast allocator and the oracle decide *per node* with these functions;
they differ only in how they find the best node.
"""

from __future__ import annotations

from enum import IntEnum

from tfpolicy.scheduler.ledger import GpuState, Ledger
from tfpolicy.scheduler.model import (
    USED_BY_TENSOR_FUSION,
    Isolation,
    IsolationPolicy,
    Phase,
    Placement,
    PodKind,
    PodRequest,
    Pool,
)
from tfpolicy.scheduler.scoring import tflops_for_percent


class Reason(IntEnum):
    """Why a GPU or node is filtered out, in the order of the filter chain
    (internal/gpuallocator/gpuallocator.go:637-697)."""

    NOT_IN_POOL = 0
    ISOLATION_CONFLICT = 1
    NOT_RUNNING = 2
    USED_BY_DEVICE_PLUGIN = 3
    INDEX_MISMATCH = 4
    ISOLATION_UNSUPPORTED = 5
    PARTITIONS_ALLOCATED = 6
    NOT_IDLE = 7
    INSUFFICIENT_TFLOPS = 8
    INSUFFICIENT_VRAM = 9
    MODEL_MISMATCH = 10
    VENDOR_MISMATCH = 11
    TOO_FEW_GPUS = 12
    TOO_MANY_WORKERS = 13
    GPU_BUSY = 14
    PARTITIONED_DYNAMIC = 15
    PARTITIONED_NOT_SIMULATED = 16
    NATIVE_NODE_UNMANAGED = 17
    NATIVE_NODE_IN_USE = 18
    NODE_AFFINITY = 19


REASON_TEXT: dict[Reason, str] = {
    Reason.NOT_IN_POOL: "no GPU of the pool",
    Reason.ISOLATION_CONFLICT: "GPU isolation mode conflict",
    Reason.NOT_RUNNING: "GPU not running",
    Reason.USED_BY_DEVICE_PLUGIN: "GPU used by the device plugin",
    Reason.INDEX_MISMATCH: "GPU index not among the requested gpu-indices",
    Reason.ISOLATION_UNSUPPORTED: "GPU cannot do the requested isolation",
    Reason.PARTITIONS_ALLOCATED: "GPU has allocated partitions",
    Reason.NOT_IDLE: "no idle GPU for shared isolation",
    Reason.INSUFFICIENT_TFLOPS: "insufficient TFLOPS",
    Reason.INSUFFICIENT_VRAM: "insufficient VRAM",
    Reason.MODEL_MISMATCH: "GPU model mismatch",
    Reason.VENDOR_MISMATCH: "GPU vendor mismatch",
    Reason.TOO_FEW_GPUS: "too few matching GPUs on the node",
    Reason.TOO_MANY_WORKERS: "too many workers on the node",
    Reason.GPU_BUSY: "insufficient free whole GPUs",
    Reason.PARTITIONED_DYNAMIC: "dynamic policy does not support partitioned allocation",
    Reason.PARTITIONED_NOT_SIMULATED: "partitioned isolation is not simulated",
    Reason.NATIVE_NODE_UNMANAGED: "node has no GPU objects (progressive migration)",
    Reason.NATIVE_NODE_IN_USE: "node runs TensorFusion workers (progressive migration)",
    Reason.NODE_AFFINITY: "node(s) didn't match Pod's node affinity/selector",
}


def resolve_pool(ledger: Ledger, pod: PodRequest) -> Pool | None:
    """The pod's pool, or the inventory's default pool
    (internal/webhook/v1/tf_parser.go:619)."""
    name = pod.pool or ledger.inventory.default_pool
    return ledger.pools.get(name) if name else None


_DYNAMIC = IsolationPolicy.DYNAMIC


def isolation_ok(policy: IsolationPolicy, state: GpuState, isolation: Isolation) -> bool:
    """The isolation-policy pre-filter (`isGPUIsolationCompatible`,
    `gpuallocator.go:713-735`) under the scheduler's ``policy``: the GPU must
    advertise the same policy (`GpuState.eligible`); Dynamic locks a GPU to its
    first pod's mode. Hot: called for every GPU of every rescored node."""
    if not state.eligible:
        return False
    if policy is _DYNAMIC:
        active = state.active
        return active is None or active is isolation
    mode = state.gpu.isolation_mode
    return isolation is Isolation.SHARED or mode is None or mode is isolation


def pod_reason(ledger: Ledger, pod: PodRequest) -> Reason | None:
    """A TensorFusion pod no node can take whatever the GPUs: `partitioned`."""
    if pod.isolation is not Isolation.PARTITIONED or is_device_plugin(pod):
        return None
    if ledger.settings.isolation_policy is IsolationPolicy.DYNAMIC:
        return Reason.PARTITIONED_DYNAMIC  # `gpuallocator.go:642-644`
    return Reason.PARTITIONED_NOT_SIMULATED  # partition templates are not modelled


def native_node_reason(ledger: Ledger, node: str) -> Reason | None:
    """Progressive migration keeps device-plugin pods to unused TensorFusion nodes."""
    if ledger.native_ok(node):
        return None
    if any(s.gpu.pool is not None for s in ledger.node_gpus[node]):
        return Reason.NATIVE_NODE_IN_USE
    return Reason.NATIVE_NODE_UNMANAGED


def gpu_reason(pool: Pool, state: GpuState, pod: PodRequest,
               policy: IsolationPolicy) -> Reason | None:
    """First GPU filter (internal/gpuallocator/gpuallocator.go:645-669) that drops
    ``state`` for ``pod``, or None."""
    gpu = state.gpu
    if gpu.pool != pool.name:
        return Reason.NOT_IN_POOL
    if not isolation_ok(policy, state, pod.isolation):
        return Reason.ISOLATION_CONFLICT
    if gpu.phase is not Phase.RUNNING:
        return Reason.NOT_RUNNING
    if state.dp_pod is not None or gpu.used_by not in ("", USED_BY_TENSOR_FUSION):
        return Reason.USED_BY_DEVICE_PLUGIN
    if pod.gpu_indices and gpu.index not in pod.gpu_indices:
        return Reason.INDEX_MISMATCH  # GPUIndexFilter: a GPU without an index never matches
    # The capability half of GPUIsolationModeFilter (`gpu_isolation_mode_filter.go:29`,
    # `:56-76`): shared is a whole-card policy, not a runtime mode, so it never asks;
    # a GPU without capability metadata (None) keeps the legacy "any mode".
    caps = gpu.isolations
    if caps is not None and pod.isolation is not Isolation.SHARED and pod.isolation not in caps:
        return Reason.ISOLATION_UNSUPPORTED
    if pod.isolation is Isolation.SHARED:
        if gpu.partitions:  # SharedWholeGPUFilter, even when available == capacity
            return Reason.PARTITIONS_ALLOCATED
        if not state.idle:
            return Reason.NOT_IDLE
    else:
        tflops = pod.tflops_request or tflops_for_percent(pod.percent_request, gpu.tflops)
        if state.avail_tflops < tflops:
            return Reason.INSUFFICIENT_TFLOPS
        if state.avail_vram < pod.vram_request:
            return Reason.INSUFFICIENT_VRAM
    return _identity_reason(state, pod)


def dp_reason(state: GpuState, pod: PodRequest) -> Reason | None:
    """Device-plugin pods: a whole free GPU of the asked model and vendor."""
    return _identity_reason(state, pod) or (None if state.free_whole else Reason.GPU_BUSY)


def _identity_reason(state: GpuState, pod: PodRequest) -> Reason | None:
    if pod.gpu_model is not None and state.gpu.model != pod.gpu_model:
        return Reason.MODEL_MISMATCH
    if pod.vendor is not None and state.gpu.vendor != pod.vendor:
        return Reason.VENDOR_MISMATCH
    return None


def node_score(ledger: Ledger, node: str, pool: Pool, isolation: Isolation) -> int:
    """The plugin's node score (`GPUFit.Score`,
    internal/scheduler/gpuresources/gpuresources.go:595-632).

    Integer mean of node-level GPU scores over the matching GPUs plus every
    isolation-compatible GPU of the node, whatever its pool (PreFilter,
    `gpuresources.go:259-289`); matching GPUs are compatible, so that is all
    compatible GPUs. Only Pending GPUs are divided by 4 (`gpuallocator.go:2118-2121`).
    """
    used = pool.placement is not Placement.LOW_LOAD_FIRST
    policy = ledger.settings.isolation_policy
    total = count = 0
    for state in ledger.node_gpus[node]:
        if isolation_ok(policy, state, isolation):
            score = state.score_used if used else state.score_avail
            total += score // 4 if state.gpu.phase is Phase.PENDING else score
            count += 1
    return total // count if count else 0


def pick_gpus(ledger: Ledger, node: str, pool: Pool, pod: PodRequest) -> tuple[str, ...] | None:
    """The GPUs ``pod`` gets on ``node`` (``GPUFit.Reserve``, gpuresources.go:638), or None
    when the node is filtered out.

    Valid GPUs sorted by GPU-within-node score (descending), then name.
    """
    if node in ledger.cordoned or ledger.workers_full(node, pool):
        return None
    policy, name = ledger.settings.isolation_policy, pool.name
    # Hot: the two inline tests are gpu_reason's own (another pool, a device-plugin GPU),
    # checked without a call for the GPUs they drop.
    valid = [s for s in ledger.node_gpus[node] if s.dp_pod is None and s.gpu.pool == name
             and gpu_reason(pool, s, pod, policy) is None]
    if len(valid) < pod.count:
        return None
    if len(valid) > pod.count:
        used = pool.placement is Placement.COMPACT_FIRST
        valid.sort(key=lambda s: (-(s.score_used if used else s.score_avail), s.gpu.name))
    return tuple(s.gpu.name for s in valid[: pod.count])


def pick_whole_gpus(ledger: Ledger, node: str, pod: PodRequest) -> tuple[str, ...] | None:
    """A device-plugin pod's GPUs on ``node``: the first free ones by name."""
    if node in ledger.cordoned or not ledger.native_ok(node):
        return None
    free = [s.gpu.name for s in ledger.node_gpus[node] if dp_reason(s, pod) is None]
    return tuple(free[: pod.count]) if len(free) >= pod.count else None


def pick_on_node(ledger: Ledger, pod: PodRequest, node: str) -> tuple[str, ...] | None:
    """A node-bound pod's GPUs on its node, or None: the only node it may take."""
    if node not in ledger.node_gpus:
        return None
    if is_device_plugin(pod):
        return pick_whole_gpus(ledger, node, pod)
    pool = resolve_pool(ledger, pod)
    if pool is None or pod_reason(ledger, pod) is not None:
        return None
    return pick_gpus(ledger, node, pool, pod)


def is_device_plugin(pod: PodRequest) -> bool:
    return pod.kind is PodKind.DEVICE_PLUGIN
