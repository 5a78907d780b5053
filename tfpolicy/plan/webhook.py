"""The webhook's pools, taken from the inventory the plan runs on (reference §1.2 ``gpupool``).

The webhook resolves a pod without ``tensor-fusion.ai/gpupool`` to the pool
annotated ``is-default-pool``; in the compact inventory that is
``spec.defaultPool``. With no default given and exactly one pool, that pool
is the default (what the Helm chart's single pool is); otherwise such pods
are rejected with ``gpu pool not found``, as upstream.
"""

from __future__ import annotations

from tfpolicy.admission import Pool
from tfpolicy.scheduler import Inventory


def admission_pools(inventory: Inventory) -> tuple[Pool, ...]:
    names = [p.name for p in inventory.pools]
    default = inventory.default_pool or (names[0] if len(names) == 1 else None)
    return tuple(Pool(name, is_default=name == default) for name in names)
