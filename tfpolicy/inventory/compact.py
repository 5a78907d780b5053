"""The compact ``tfpolicy.dev/v1alpha1`` Inventory (`schemas/inventory.schema.json`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.table import lookup, unknown_model
from tfpolicy.inventory.fields import (
    MAX_NODES,
    as_list,
    check_size,
    cost_of,
    enum,
    host_of,
    integer,
    keys,
    mapping,
    text,
    tflops_of,
    unique,
    vram_of,
)
from tfpolicy.inventory.settings import from_spec
from tfpolicy.scheduler.model import (
    GPU,
    Inventory,
    IsolationPolicy,
    Node,
    Placement,
    Pool,
)

API_VERSION = "tfpolicy.dev/v1alpha1"
_GROUP_KEYS = {"name", "count", "gpusPerNode", "model", "vendor", "tflops", "vram",
               "costPerHour", "nodeCostPerHour", "ramSize", "dataDiskSize"}
_POOL_KEYS = {"name", "placement", "isolationPolicy", "maxWorkersPerNode", "oversubscription",
              "nodeGroups"}
_OVERSUB_KEYS = {"tflopsOversellRatio", "vramExpandToHostMem", "vramExpandToHostDisk"}


def from_compact(doc: Mapping[str, Any]) -> Inventory:
    """The compact form; errors name the JSON path of the bad value."""
    if doc.get("apiVersion") != API_VERSION:
        raise TfpolicyError(f"Inventory apiVersion must be {API_VERSION} ($.apiVersion)")
    keys(doc, {"apiVersion", "kind", "metadata", "spec"}, "$")
    spec = mapping(doc.get("spec"), "$.spec")
    keys(spec, {"defaultPool", "pools", "devicePluginOnly", "scheduler"}, "$.spec")
    pools: list[Pool] = []
    gpus: list[GPU] = []
    nodes: list[Node] = []
    for i, raw in enumerate(as_list(spec.get("pools", []), "$.spec.pools")):
        pool, groups = _pool(raw, f"$.spec.pools[{i}]")
        pools.append(pool)
        for j, group in enumerate(groups):
            _group(group, pool.name, f"$.spec.pools[{i}].nodeGroups[{j}]", gpus, nodes)
    for j, group in enumerate(as_list(spec.get("devicePluginOnly", []), "$.spec.devicePluginOnly")):
        _group(group, None, f"$.spec.devicePluginOnly[{j}]", gpus, nodes)
    unique([p.name for p in pools], "pool")
    unique([n.name for n in nodes], "node")
    default = spec.get("defaultPool")
    if default is not None and default not in {p.name for p in pools}:
        raise TfpolicyError(f"defaultPool {default!r} is not a pool ($.spec.defaultPool)")
    settings = from_spec(spec["scheduler"], "$.spec.scheduler") if "scheduler" in spec else None
    return Inventory.build(pools, gpus, nodes, default, settings)


def _pool(raw: Any, path: str) -> tuple[Pool, list[Any]]:
    data = mapping(raw, path)
    keys(data, _POOL_KEYS, path)
    over = mapping(data.get("oversubscription", {}), f"{path}.oversubscription")
    keys(over, _OVERSUB_KEYS, f"{path}.oversubscription")
    pool = Pool(
        name=text(data.get("name"), f"{path}.name"),
        placement=enum(Placement, data.get("placement", "NodeCompactGPULowLoad"),
                        f"{path}.placement"),
        isolation_policy=enum(IsolationPolicy, data["isolationPolicy"],
                               f"{path}.isolationPolicy") if "isolationPolicy" in data else None,
        tflops_oversell=integer(over["tflopsOversellRatio"], f"{path}.oversubscription", 100_000)
        if "tflopsOversellRatio" in over else None,
        vram_expand_to_host_mem=integer(over.get("vramExpandToHostMem", 0), path, 100),
        vram_expand_to_host_disk=integer(over.get("vramExpandToHostDisk", 0), path, 100),
        max_workers_per_node=integer(data.get("maxWorkersPerNode", 256), path, 100_000),
    )
    return pool, as_list(data.get("nodeGroups", []), f"{path}.nodeGroups")


def _group(raw: Any, pool: str | None, path: str, gpus: list[GPU], nodes: list[Node]) -> None:
    data = mapping(raw, path)
    keys(data, _GROUP_KEYS, path)
    name = text(data.get("name"), f"{path}.name")
    model, vendor, tflops, vram, cost = _model(data, path)
    per_node = integer(data.get("gpusPerNode", 8), f"{path}.gpusPerNode", 128)
    count = integer(data.get("count", 1), f"{path}.count", MAX_NODES)
    check_size(len(nodes) + count, len(gpus) + count * per_node, path)
    ram = host_of(data.get("ramSize", 0), f"{path}.ramSize")
    disk = host_of(data.get("dataDiskSize", 0), f"{path}.dataDiskSize")
    price = data.get("nodeCostPerHour")  # what the cloud bills per node, when known
    node_cost = (cost_of(price, f"{path}.nodeCostPerHour") if price is not None
                 else cost * per_node)
    for n in range(count):
        node = f"{name}-{n:03d}"
        names = tuple(f"{node}-gpu{i}" for i in range(per_node))
        nodes.append(Node(node, names, node_cost, ram, disk))
        gpus.extend(GPU(g, node, pool, model, vendor, tflops, vram, cost=cost, index=i)
                    for i, g in enumerate(names))


def _model(data: Mapping[str, Any], path: str) -> tuple[str, str, int, int, int]:
    """(full model name, vendor, milli-TFLOPS, MiB, micro-USD/h): explicit values win."""
    given = text(data.get("model"), f"{path}.model")
    info = lookup(given)
    tflops = tflops_of(data["tflops"], f"{path}.tflops") if "tflops" in data else None
    vram = vram_of(data["vram"], f"{path}.vram") if "vram" in data else None
    if tflops is None and info is None:
        raise TfpolicyError(unknown_model(given, path))
    vram = vram if vram is not None else (info.vram_mib if info else None)
    if vram is None:
        raise TfpolicyError(f"VRAM of GPU model {given!r} is not known: give vram ({path}.vram)")
    if tflops is None:
        tflops = info.milli_tflops if info else 0
    cost = data.get("costPerHour")
    micro = (cost_of(cost, f"{path}.costPerHour") if cost is not None
             else info.cost_micro_usd if info else 0)
    vendor = str(data.get("vendor") or (info.vendor if info else "NVIDIA"))
    return info.full_name if info else given, vendor, tflops, vram, micro
