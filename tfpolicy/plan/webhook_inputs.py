"""The webhook's pools and model capacities, from the inventory the plan runs on
(pool and ``dedicated-gpu``: NexusGPU/tensor-fusion internal/webhook/v1/tf_parser.go:619),
and the HAMi share names, from the policies.

The webhook resolves a pod without ``tensor-fusion.ai/gpupool`` to the pool
annotated ``is-default-pool``; in the compact inventory that is
``spec.defaultPool``. With no default given and exactly one pool, that pool
is the default (what the Helm chart's single pool is); otherwise such pods
are rejected with ``gpu pool not found``, as upstream.
"""

from __future__ import annotations

from collections.abc import Iterable

from tfpolicy.admission import ModelCapacity, Pool, WebhookConfig
from tfpolicy.policy.model import Policy
from tfpolicy.records import replace
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


def with_hami(webhook: WebhookConfig, policies: Iterable[Policy]) -> WebhookConfig:
    """``webhook``, also knowing the HAMi share names the policies rename (``spec.hami``, at
    the top or in an override): HAMi's own webhook gives a container asking for those
    alone a GPU, as for the chart's names. Each policy's names count, whichever template
    it owns: one cluster runs one HAMi, so the names are the cluster's."""
    declared = {name for policy in policies
                for settings in (policy.settings, *(o.settings for o in policy.overrides))
                if settings.hami is not None
                for name in (settings.hami.memory, settings.hami.memory_percent,
                             settings.hami.cores)}
    if declared <= webhook.hami_shares:
        return webhook
    return replace(webhook, hami_shares=webhook.hami_shares | declared)
