"""Hypothesis strategies: small inventories and pod requests with many collisions."""

from __future__ import annotations

from hypothesis import strategies as st

from tfpolicy.scheduler.model import (
    GPU,
    Inventory,
    Isolation,
    IsolationPolicy,
    Phase,
    Placement,
    PodKind,
    PodRequest,
    Pool,
    SchedulerSettings,
)

MODELS = (("A100", 312_000, 81_920), ("L4", 121_000, 24_576), ("T4", 65_000, 16_384))
POOLS = ("pool-a", "pool-b")
# virtualization-capabilities: mostly none (every mode), else a few modes or none at all
CAPABILITIES = (None, None, None, frozenset(), frozenset({Isolation.SOFT}),
                frozenset({Isolation.SOFT, Isolation.HARD}))


@st.composite
def settings(draw: st.DrawFn) -> SchedulerSettings:
    """The operator's configuration: policy, progressive migration, score weights."""
    return SchedulerSettings(
        isolation_policy=draw(st.sampled_from(IsolationPolicy)),
        progressive_migration=draw(st.booleans()),
        vram_weight=draw(st.sampled_from((700, 500, 1000, 0, 333))),
        tflops_weight=draw(st.sampled_from((300, 500, 0, 1000, 667))),
        max_workers_per_node=draw(st.sampled_from((None, None, 1, 2))),
    )


@st.composite
def inventories(draw: st.DrawFn) -> Inventory:
    pools = [
        Pool(name, placement=draw(st.sampled_from(Placement)),
             isolation_policy=draw(st.sampled_from((None, None, *IsolationPolicy))),
             max_workers_per_node=draw(st.sampled_from((2, 3, 256))))
        for name in POOLS
    ]
    gpus: list[GPU] = []
    for n in range(draw(st.integers(1, 6))):
        node_pool = draw(st.sampled_from((*POOLS, None)))
        mixed = draw(st.integers(0, 4)) == 0  # a node whose GPUs sit in several pools
        model, tflops, vram = draw(st.sampled_from(MODELS))
        for i in range(draw(st.integers(1, 4))):
            pool = draw(st.sampled_from((*POOLS, None))) if mixed else node_pool
            gpus.append(GPU(
                name=f"gpu-{n}-{i}", node=f"node-{n}", pool=pool, model=model,
                vendor=draw(st.sampled_from(("NVIDIA", "NVIDIA", "AMD"))),
                tflops=tflops, vram=vram,
                phase=draw(st.sampled_from((Phase.RUNNING,) * 5 + (Phase.PENDING, Phase.UNKNOWN))),
                used_by=draw(st.sampled_from(("tensor-fusion",) * 5 + ("nvidia-device-plugin",))),
                isolation_mode=draw(st.sampled_from((None, Isolation.SOFT, Isolation.HARD))),
                external_tflops=draw(st.sampled_from((0,) * 7 + (tflops // 2,))),
                isolation_conflict=draw(st.sampled_from((False,) * 9 + (True,))),
                active_isolation=draw(st.sampled_from((None,) * 5 + (Isolation.HARD,))),
                index=draw(st.sampled_from((i, i, i, None))),
                isolations=draw(st.sampled_from(CAPABILITIES)),
                partitions=draw(st.sampled_from((0,) * 7 + (1,))),
            ))
    return Inventory.build(pools, gpus, default_pool=draw(st.sampled_from((*POOLS, None))),
                           settings=draw(st.sampled_from((None, draw(settings())))))


@st.composite
def pods(draw: st.DrawFn, name: str) -> PodRequest:
    kind = draw(st.sampled_from((PodKind.TENSOR_FUSION,) * 3 + (PodKind.DEVICE_PLUGIN,)))
    percent = draw(st.booleans())
    return PodRequest(
        name=name, kind=kind, pool=draw(st.sampled_from((*POOLS, None))),
        count=draw(st.sampled_from((1, 1, 1, 2, 3))),
        isolation=draw(st.sampled_from(Isolation)),
        tflops_request=0 if percent else draw(st.sampled_from((10_000, 60_000, 150_000))),
        percent_request=draw(st.sampled_from((25_000, 50_000, 12_500))) if percent else 0,
        vram_request=draw(st.sampled_from((0, 4_096, 8_192, 20_480))),
        tflops_limit=draw(st.sampled_from((0, 200_000))),
        vram_limit=draw(st.sampled_from((0, 40_960))),
        gpu_model=draw(st.sampled_from((None, None, "A100", "L4"))),
        vendor=draw(st.sampled_from((None, None, "NVIDIA"))),
        gpu_indices=draw(st.sampled_from(((),) * 4 + ((0,), (1, 2)))),
    )
