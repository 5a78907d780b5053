"""The webhook's pools and model capacities, from the inventory the plan runs on (§1.2).

The webhook resolves a pod without ``tensor-fusion.ai/gpupool`` to the pool
annotated ``is-default-pool``; in the compact inventory that is
``spec.defaultPool``. With no default given and exactly one pool, that pool
is the default (what the Helm chart's single pool is); otherwise such pods
are rejected with ``gpu pool not found``, as upstream.
"""

from __future__ import annotations

from tfpolicy.admission import ModelCapacity, Pool
from tfpolicy.scheduler import Inventory


def admission_pools(inventory: Inventory) -> tuple[Pool, ...]:
    names = [p.name for p in inventory.pools]
    default = inventory.default_pool or (names[0] if len(names) == 1 else None)
    return tuple(Pool(name, is_default=name == default) for name in names)


def model_capacities(inventory: Inventory) -> dict[str, ModelCapacity]:
    """Model → full capacity from the inventory's GPUs, first by name wins.

    The allocator fills this map from the GPU objects it sees
    (``gpuallocator.go:2359``); ``dedicated-gpu`` reads it. The inventory
    counts milli-TFLOPS and MiB.
    """
    found: dict[str, ModelCapacity] = {}
    for gpu in sorted(inventory.gpus, key=lambda g: g.name):
        found.setdefault(gpu.model, ModelCapacity(f"{gpu.tflops}m", f"{gpu.vram}Mi"))
    return found
