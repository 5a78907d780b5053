"""Small hand-built inventories for the behaviour tests."""

from __future__ import annotations

from tfpolicy.scheduler import GPU, FastAllocator, Inventory, Ledger, Placement, Pool

A100 = ("NVIDIA A100-SXM4-80GB", 312_000, 81_920)
L4 = ("NVIDIA L4", 121_000, 24_576)


def cluster(nodes: dict[str, tuple[str | None, tuple[str, int, int], int]],
            placement: Placement = Placement.NODE_COMPACT_GPU_LOW_LOAD,
            **pool: int) -> Inventory:
    """``nodes``: name → (pool, model, GPU count); one pool named ``p``."""
    gpus = [GPU(f"{node}-g{i}", node, p, m[0], "NVIDIA", m[1], m[2], cost=1_000_000)
            for node, (p, m, n) in nodes.items() for i in range(n)]
    return Inventory.build([Pool("p", placement, **pool)], gpus, default_pool="p")  # type: ignore[arg-type]


def allocator(inventory: Inventory) -> FastAllocator:
    return FastAllocator(Ledger(inventory))
