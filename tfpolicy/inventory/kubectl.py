"""What ``kubectl get gpupool,gpunode,gpu -o yaml`` prints: the operator's objects
(NexusGPU/tensor-fusion api/v1/gpupool_types.go, gpunode_types.go, gpu_types.go)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.table import lookup
from tfpolicy.inventory.capabilities import ANNOTATION, isolations
from tfpolicy.inventory.fields import (
    as_list,
    check_size,
    cost_of,
    enum,
    get,
    host_of,
    integer,
    mapping,
    name_of,
    text,
    tflops_of,
    vram_of,
)
from tfpolicy.scheduler.model import (
    GPU,
    Inventory,
    Isolation,
    IsolationPolicy,
    Node,
    Phase,
    Placement,
    Pool,
)

_OVERSUB_DEFAULTS = {"tflopsOversellRatio": 500, "vramExpandToHostMem": 50,
                     "vramExpandToHostDisk": 70}  # gpupool_types.go:67-81
_POOL_LABEL = "tensor-fusion.ai/gpupool"
_DEFAULT_POOL = "tensor-fusion.ai/is-default-pool"


def from_kubectl(docs: list[Any]) -> Inventory:
    """GPUPool / GPUNode / GPU (and SchedulingConfigTemplate) objects, any order."""
    items = _by_kind(docs)
    modes = {name_of(t): get(t, "spec", "placement", "mode")
             for t in items["SchedulingConfigTemplate"]}
    nodes = {name_of(n): n for n in items["GPUNode"]}
    gpus = [_kube_gpu(g, nodes) for g in items["GPU"]]
    check_size(len({g.node for g in gpus} | set(nodes)), len(gpus), "kubectl inventory")
    policies = _advertised(items["GPU"])
    pools = {name_of(p): _kube_pool(p, modes, policies.get(name_of(p))) for p in items["GPUPool"]}
    for gpu in gpus:  # a GPU labelled with a pool the listing lacks still has a pool
        if gpu.pool is not None and gpu.pool not in pools:
            pools[gpu.pool] = Pool(gpu.pool, isolation_policy=policies.get(gpu.pool))
    defaults = sorted(name_of(p) for p in items["GPUPool"]
                      if get(p, "metadata", "annotations", _DEFAULT_POOL) == "true")
    node_records = [_kube_node(n) for n in items["GPUNode"]]
    return Inventory.build(list(pools.values()), gpus, node_records,
                           defaults[0] if defaults else None)


def _advertised(gpus: list[Mapping[str, Any]]) -> dict[str, IsolationPolicy]:
    """Per pool, the policy its GPUs advertise (`GPU.status.isolationPolicy`);
    Static wins when both are seen. GPUs that say nothing follow the scheduler."""
    found: dict[str, IsolationPolicy] = {}
    for gpu in gpus:
        pool, said = get(gpu, "metadata", "labels", _POOL_LABEL), get(gpu, "status",
                                                                        "isolationPolicy")
        if (isinstance(pool, str) and said in ("Static", "Dynamic")
                and found.get(pool) is not IsolationPolicy.STATIC):
            found[pool] = IsolationPolicy(said)
    return found


def _by_kind(docs: list[Any]) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {
        k: [] for k in ("GPUPool", "GPUNode", "GPU", "SchedulingConfigTemplate")}
    stack = list(docs)
    while stack:
        doc = stack.pop(0)
        if isinstance(doc, Mapping) and doc.get("kind") == "List":
            stack[:0] = as_list(doc.get("items", []), "$.items")
        elif isinstance(doc, Mapping) and doc.get("kind") in found:
            found[str(doc["kind"])].append(doc)
    if not found["GPU"]:
        raise TfpolicyError("no GPU objects in the inventory (kubectl get gpupool,gpunode,gpu)")
    return found


def _kube_gpu(obj: Mapping[str, Any], nodes: Mapping[str, Any]) -> GPU:
    name = name_of(obj)
    where = f"GPU {name}"
    node = (get(obj, "status", "nodeSelector", "kubernetes.io/hostname")
            or get(obj, "metadata", "labels", "tensor-fusion.ai/managed-by"))
    capacity = mapping(get(obj, "status", "capacity"), f"{where} status.capacity")
    available = get(obj, "status", "available") or capacity
    tflops = tflops_of(capacity.get("tflops"), f"{where} status.capacity.tflops")
    vram = vram_of(capacity.get("vram"), f"{where} status.capacity.vram")
    model = text(get(obj, "status", "gpuModel"), f"{where} status.gpuModel")
    return GPU(
        name, text(node, f"{where} status.nodeSelector"),
        get(obj, "metadata", "labels", _POOL_LABEL), model,
        str(get(obj, "status", "vendor") or "NVIDIA"), tflops, vram,
        phase=enum(Phase, get(obj, "status", "phase") or "Pending", f"{where} status.phase"),
        used_by=str(get(obj, "status", "usedBy") or ""),
        isolation_mode=_isolation(get(obj, "status", "isolationMode")),
        isolation_conflict=get(obj, "status", "dynamicIsolationConflict") is True,
        active_isolation=_isolation(get(obj, "status", "activeIsolationMode")),
        cost=_kube_cost(nodes.get(str(node)), model),
        external_tflops=tflops - _available(available, "tflops", capacity, tflops, where),
        external_vram=vram - _available(available, "vram", capacity, vram, where),
        index=_index(get(obj, "status", "index"), where),
        isolations=isolations(get(obj, "metadata", "annotations", ANNOTATION), f"{where} "
                              f"metadata.annotations"),
        partitions=_partitions(get(obj, "status", "allocatedPartitions"), where),
    )


def _available(available: Mapping[str, Any], key: str, capacity: Mapping[str, Any],
               total: int, where: str) -> int:
    """`status.available.<key>` in our units, never above the capacity."""
    path = f"{where} status.available.{key}"
    value = available.get(key, capacity.get(key))
    amount = tflops_of(value, path) if key == "tflops" else vram_of(value, path)
    if amount > total:
        raise TfpolicyError(f"available is above the capacity ({path})")
    return amount


def _kube_pool(obj: Mapping[str, Any], modes: Mapping[str, Any],
               policy: IsolationPolicy | None) -> Pool:
    """Placement from the pool's SchedulingConfigTemplate (default when absent,
    schedulingconfigtemplate_types.go:55);
    the isolation policy its GPUs advertise, if they say."""
    name = name_of(obj)
    over = get(obj, "spec", "capacityConfig", "oversubscription")
    over = {**_OVERSUB_DEFAULTS, **over} if isinstance(over, Mapping) else None
    mode = modes.get(str(get(obj, "spec", "schedulingConfigTemplate"))) or "NodeCompactGPULowLoad"
    return Pool(
        name, enum(Placement, mode, f"GPUPool {name} placement mode"),
        policy,
        tflops_oversell=integer(over["tflopsOversellRatio"], name, 100_000) if over else None,
        vram_expand_to_host_mem=integer(over["vramExpandToHostMem"], name, 100) if over else 0,
        vram_expand_to_host_disk=integer(over["vramExpandToHostDisk"], name, 100) if over else 0,
    )


def _kube_node(obj: Mapping[str, Any]) -> Node:
    name = name_of(obj)
    info = get(obj, "status", "nodeInfo") or {}
    cost = get(obj, "spec", "costPerHour")
    where = f"GPUNode {name}"
    return Node(name, (), cost_of(cost, f"{where} spec.costPerHour") if cost else 0,
                host_of(info.get("ramSize", 0), f"{where} status.nodeInfo.ramSize"),
                host_of(info.get("dataDiskSize", 0), f"{where} status.nodeInfo.dataDiskSize"))


def _kube_cost(node: Mapping[str, Any] | None, model: str) -> int:
    """Per GPU: the GPUNode's price split over its GPUs, else the table's price."""
    cost = get(node, "spec", "costPerHour") if node else None
    count = get(node, "status", "totalGPUs") if node else None
    if cost and isinstance(count, int) and count > 0:
        return cost_of(cost, f"GPUNode {name_of(node or {})} spec.costPerHour") // count
    info = lookup(model)
    return info.cost_micro_usd if info else 0


def _partitions(value: Any, where: str) -> int:
    """How many `status.allocatedPartitions` entries (pod UID → partition) the GPU has."""
    if value is None:
        return 0
    return len(mapping(value, f"{where} status.allocatedPartitions"))


def _index(value: Any, where: str) -> int | None:
    """`status.index`, an int32 (`api/v1/gpu_types.go`)."""
    return None if value is None else integer(value, f"{where} status.index", 2**31 - 1)


def _isolation(value: Any) -> Isolation | None:
    return {"shared": Isolation.SHARED, "soft": Isolation.SOFT, "hard": Isolation.HARD,
            "partitioned": Isolation.PARTITIONED}.get(str(value)) if value else None
