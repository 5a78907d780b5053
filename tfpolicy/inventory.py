"""Parsed inventory YAML → scheduler records (no file I/O here).

Two forms are read:

* the compact ``apiVersion: tfpolicy.dev/v1alpha1, kind: Inventory``
  (`schemas/inventory.schema.json`): pools of node groups (``count`` ×
  ``gpusPerNode`` of a ``model`` looked up in the GPU tables, optional
  ``tflops``/``vram``/``costPerHour`` overrides), plus ``devicePluginOnly``
  node groups outside every pool. Nodes are named ``<group>-000`` and GPUs
  ``<node>-gpu<i>``; a GPU's model is the table's full name, which is what
  `GPU.status.gpuModel` holds and `tensor-fusion.ai/gpu-model` must equal;
* what ``kubectl get gpupool,gpunode,gpu -o yaml`` prints (a ``v1 List``, or the
  objects as separate documents), optionally with SchedulingConfigTemplates
  for the pools' placement mode (reference/tensor-fusion.md §4).

Costs are per GPU: the table's, the group's ``costPerHour``, or a GPUNode's
``spec.costPerHour`` split evenly over its GPUs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gputable import lookup
from tfpolicy.quantity import QuantityError, milli, parse_quantity, whole
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

API_VERSION = "tfpolicy.dev/v1alpha1"
MIB = 2**20
_GROUP_KEYS = {"name", "count", "gpusPerNode", "model", "vendor", "tflops", "vram",
               "costPerHour", "ramSize", "dataDiskSize"}
_POOL_KEYS = {"name", "placement", "isolationPolicy", "maxWorkersPerNode", "oversubscription",
              "nodeGroups"}
_OVERSUB_KEYS = {"tflopsOversellRatio", "vramExpandToHostMem", "vramExpandToHostDisk"}


def load_inventory(documents: Any) -> Inventory:
    """An Inventory from one parsed document or a list of them (multi-document YAML)."""
    docs = [d for d in (documents if isinstance(documents, list) else [documents]) if d]
    if len(docs) == 1 and _is_compact(docs[0]):
        return from_compact(docs[0])
    if any(_is_compact(d) for d in docs):
        raise TfpolicyError("a compact Inventory must be the only document")
    return from_kubectl(docs)


def _is_compact(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") == "Inventory"


def from_compact(doc: Mapping[str, Any]) -> Inventory:
    """The compact form; errors name the JSON path of the bad value."""
    if doc.get("apiVersion") != API_VERSION:
        raise TfpolicyError(f"Inventory apiVersion must be {API_VERSION} ($.apiVersion)")
    _keys(doc, {"apiVersion", "kind", "metadata", "spec"}, "$")
    spec = _mapping(doc.get("spec"), "$.spec")
    _keys(spec, {"defaultPool", "pools", "devicePluginOnly"}, "$.spec")
    pools: list[Pool] = []
    gpus: list[GPU] = []
    nodes: list[Node] = []
    for i, raw in enumerate(_list(spec.get("pools", []), "$.spec.pools")):
        pool, groups = _pool(raw, f"$.spec.pools[{i}]")
        pools.append(pool)
        for j, group in enumerate(groups):
            _group(group, pool.name, f"$.spec.pools[{i}].nodeGroups[{j}]", gpus, nodes)
    for j, group in enumerate(_list(spec.get("devicePluginOnly", []), "$.spec.devicePluginOnly")):
        _group(group, None, f"$.spec.devicePluginOnly[{j}]", gpus, nodes)
    _unique([p.name for p in pools], "pool")
    _unique([n.name for n in nodes], "node")
    default = spec.get("defaultPool")
    if default is not None and default not in {p.name for p in pools}:
        raise TfpolicyError(f"defaultPool {default!r} is not a pool ($.spec.defaultPool)")
    return Inventory.build(pools, gpus, nodes, default)


def _pool(raw: Any, path: str) -> tuple[Pool, list[Any]]:
    data = _mapping(raw, path)
    _keys(data, _POOL_KEYS, path)
    over = _mapping(data.get("oversubscription", {}), f"{path}.oversubscription")
    _keys(over, _OVERSUB_KEYS, f"{path}.oversubscription")
    pool = Pool(
        name=_text(data.get("name"), f"{path}.name"),
        placement=_enum(Placement, data.get("placement", "NodeCompactGPULowLoad"),
                        f"{path}.placement"),
        isolation_policy=_enum(IsolationPolicy, data.get("isolationPolicy", "Dynamic"),
                               f"{path}.isolationPolicy"),
        tflops_oversell=_int(over["tflopsOversellRatio"], f"{path}.oversubscription")
        if "tflopsOversellRatio" in over else None,
        vram_expand_to_host_mem=_int(over.get("vramExpandToHostMem", 0), path),
        vram_expand_to_host_disk=_int(over.get("vramExpandToHostDisk", 0), path),
        max_workers_per_node=_int(data.get("maxWorkersPerNode", 256), path),
    )
    return pool, _list(data.get("nodeGroups", []), f"{path}.nodeGroups")


def _group(raw: Any, pool: str | None, path: str, gpus: list[GPU], nodes: list[Node]) -> None:
    data = _mapping(raw, path)
    _keys(data, _GROUP_KEYS, path)
    name = _text(data.get("name"), f"{path}.name")
    model, vendor, tflops, vram, cost = _model(data, path)
    per_node = _int(data.get("gpusPerNode", 8), f"{path}.gpusPerNode")
    ram = _mib(data.get("ramSize", 0), f"{path}.ramSize")
    disk = _mib(data.get("dataDiskSize", 0), f"{path}.dataDiskSize")
    for n in range(_int(data.get("count", 1), f"{path}.count")):
        node = f"{name}-{n:03d}"
        names = tuple(f"{node}-gpu{i}" for i in range(per_node))
        nodes.append(Node(node, names, cost * per_node, ram, disk))
        gpus.extend(GPU(g, node, pool, model, vendor, tflops, vram, cost=cost) for g in names)


def _model(data: Mapping[str, Any], path: str) -> tuple[str, str, int, int, int]:
    """(full model name, vendor, milli-TFLOPS, MiB, micro-USD/h): explicit values win."""
    given = _text(data.get("model"), f"{path}.model")
    info = lookup(given)
    tflops = _milli(data["tflops"], f"{path}.tflops") if "tflops" in data else None
    vram = _mib(data["vram"], f"{path}.vram") if "vram" in data else None
    if tflops is None and info is None:
        raise TfpolicyError(f"unknown GPU model {given!r}: give tflops and vram ({path}.model)")
    vram = vram if vram is not None else (info.vram_mib if info else None)
    if vram is None:
        raise TfpolicyError(f"VRAM of GPU model {given!r} is not known: give vram ({path}.vram)")
    if tflops is None:
        tflops = info.milli_tflops if info else 0
    cost = data.get("costPerHour")
    micro = (_micro(cost, f"{path}.costPerHour") if cost is not None
             else info.cost_micro_usd if info else 0)
    vendor = str(data.get("vendor") or (info.vendor if info else "NVIDIA"))
    return info.full_name if info else given, vendor, tflops, vram, micro


def _keys(data: Mapping[str, Any], allowed: Iterable[str], path: str) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise TfpolicyError(f"unknown field {unknown[0]!r} ({path}.{unknown[0]}); "
                            f"expected one of {', '.join(sorted(allowed))}")


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TfpolicyError(f"expected a mapping ({path})")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise TfpolicyError(f"expected a list ({path})")
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise TfpolicyError(f"expected a non-empty string ({path})")
    return value


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TfpolicyError(f"expected a non-negative integer, got {value!r} ({path})")
    return value


def _enum(kind: type[Placement] | type[IsolationPolicy] | type[Phase], value: Any,
          path: str) -> Any:
    valid = [m.value for m in kind]
    if value not in valid:
        raise TfpolicyError(f"{value!r} is not one of {', '.join(valid)} ({path})")
    return kind(value)


def _milli(value: Any, path: str) -> int:
    try:
        return milli(value)
    except (QuantityError, TypeError) as error:
        raise TfpolicyError(f"{error} ({path})") from None


def _mib(value: Any, path: str) -> int:
    try:
        return -(-whole(value) // MIB)
    except (QuantityError, TypeError) as error:
        raise TfpolicyError(f"{error} ({path})") from None


def _micro(value: Any, path: str) -> int:
    try:
        return -(-parse_quantity(value) * 10**6 // 1)
    except (QuantityError, TypeError) as error:
        raise TfpolicyError(f"{error} ({path})") from None


def _unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise TfpolicyError(f"duplicate {what} name {name!r}")
        seen.add(name)


# --- the kubectl form (§4 CRDs) ---------------------------------------------

_OVERSUB_DEFAULTS = {"tflopsOversellRatio": 500, "vramExpandToHostMem": 50,
                     "vramExpandToHostDisk": 70}  # GPUPool CRD defaults (§4)
_POOL_LABEL = "tensor-fusion.ai/gpupool"
_DEFAULT_POOL = "tensor-fusion.ai/is-default-pool"


def from_kubectl(docs: list[Any]) -> Inventory:
    """GPUPool / GPUNode / GPU (and SchedulingConfigTemplate) objects, any order."""
    items = _by_kind(docs)
    modes = {_name(t): _get(t, "spec", "placement", "mode")
             for t in items["SchedulingConfigTemplate"]}
    nodes = {_name(n): n for n in items["GPUNode"]}
    gpus = [_kube_gpu(g, nodes) for g in items["GPU"]]
    static = {_get(g, "metadata", "labels", _POOL_LABEL) for g in items["GPU"]
              if _get(g, "status", "isolationPolicy") == "Static"}
    pools = {_name(p): _kube_pool(p, modes, _name(p) in static) for p in items["GPUPool"]}
    for gpu in gpus:  # a GPU labelled with a pool the listing lacks still has a pool
        if gpu.pool is not None and gpu.pool not in pools:
            pools[gpu.pool] = Pool(gpu.pool)
    defaults = sorted(_name(p) for p in items["GPUPool"]
                      if _get(p, "metadata", "annotations", _DEFAULT_POOL) == "true")
    node_records = [_kube_node(n) for n in items["GPUNode"]]
    return Inventory.build(list(pools.values()), gpus, node_records,
                           defaults[0] if defaults else None)


def _by_kind(docs: list[Any]) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {
        k: [] for k in ("GPUPool", "GPUNode", "GPU", "SchedulingConfigTemplate")}
    stack = list(docs)
    while stack:
        doc = stack.pop(0)
        if isinstance(doc, Mapping) and doc.get("kind") == "List":
            stack[:0] = _list(doc.get("items", []), "$.items")
        elif isinstance(doc, Mapping) and doc.get("kind") in found:
            found[str(doc["kind"])].append(doc)
    if not found["GPU"]:
        raise TfpolicyError("no GPU objects in the inventory (kubectl get gpupool,gpunode,gpu)")
    return found


def _kube_gpu(obj: Mapping[str, Any], nodes: Mapping[str, Any]) -> GPU:
    name = _name(obj)
    where = f"GPU {name}"
    node = (_get(obj, "status", "nodeSelector", "kubernetes.io/hostname")
            or _get(obj, "metadata", "labels", "tensor-fusion.ai/managed-by"))
    capacity = _mapping(_get(obj, "status", "capacity"), f"{where} status.capacity")
    available = _get(obj, "status", "available") or capacity
    tflops, vram = _milli(capacity.get("tflops"), where), _mib(capacity.get("vram"), where)
    model = _text(_get(obj, "status", "gpuModel"), f"{where} status.gpuModel")
    return GPU(
        name, _text(node, f"{where} status.nodeSelector"),
        _get(obj, "metadata", "labels", _POOL_LABEL), model,
        str(_get(obj, "status", "vendor") or "NVIDIA"), tflops, vram,
        phase=_enum(Phase, _get(obj, "status", "phase") or "Pending", f"{where} status.phase"),
        used_by=str(_get(obj, "status", "usedBy") or ""),
        isolation_mode=_isolation(_get(obj, "status", "isolationMode")),
        cost=_kube_cost(nodes.get(str(node)), model),
        external_tflops=tflops - _milli(available.get("tflops", capacity.get("tflops")), where),
        external_vram=vram - _mib(available.get("vram", capacity.get("vram")), where),
    )


def _kube_pool(obj: Mapping[str, Any], modes: Mapping[str, Any], static: bool) -> Pool:
    """Placement from the pool's SchedulingConfigTemplate (default when absent, §4);
    the pool is Static when its GPUs report `isolationPolicy: Static`."""
    name = _name(obj)
    over = _get(obj, "spec", "capacityConfig", "oversubscription")
    over = {**_OVERSUB_DEFAULTS, **over} if isinstance(over, Mapping) else None
    mode = modes.get(str(_get(obj, "spec", "schedulingConfigTemplate"))) or "NodeCompactGPULowLoad"
    return Pool(
        name, _enum(Placement, mode, f"GPUPool {name} placement mode"),
        IsolationPolicy.STATIC if static else IsolationPolicy.DYNAMIC,
        tflops_oversell=_int(over["tflopsOversellRatio"], name) if over else None,
        vram_expand_to_host_mem=_int(over["vramExpandToHostMem"], name) if over else 0,
        vram_expand_to_host_disk=_int(over["vramExpandToHostDisk"], name) if over else 0,
    )


def _kube_node(obj: Mapping[str, Any]) -> Node:
    name = _name(obj)
    info = _get(obj, "status", "nodeInfo") or {}
    cost = _get(obj, "spec", "costPerHour")
    return Node(name, (), _micro(cost, f"GPUNode {name}") if cost else 0,
                _mib(info.get("ramSize", 0), f"GPUNode {name}"),
                _mib(info.get("dataDiskSize", 0), f"GPUNode {name}"))


def _kube_cost(node: Mapping[str, Any] | None, model: str) -> int:
    """Per GPU: the GPUNode's price split over its GPUs, else the table's price."""
    cost = _get(node, "spec", "costPerHour") if node else None
    count = _get(node, "status", "totalGPUs") if node else None
    if cost and isinstance(count, int) and count > 0:
        return _micro(cost, f"GPUNode {_name(node or {})}") // count
    info = lookup(model)
    return info.cost_micro_usd if info else 0


def _isolation(value: Any) -> Isolation | None:
    return {"shared": Isolation.SHARED, "soft": Isolation.SOFT, "hard": Isolation.HARD}.get(
        str(value)) if value else None


def _name(obj: Mapping[str, Any]) -> str:
    return _text(_get(obj, "metadata", "name"), f"{obj.get('kind', 'object')} metadata.name")


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj
