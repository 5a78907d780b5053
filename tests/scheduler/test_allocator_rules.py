"""Allocator behaviour pinned to reference/tensor-fusion.md §5."""

from __future__ import annotations

from sched_fixtures import A100, L4, allocator, cluster

from tfpolicy.scheduler import (
    GPU,
    Allocation,
    Choice,
    FastAllocator,
    Inventory,
    Isolation,
    Ledger,
    OracleAllocator,
    Placement,
    PodKind,
    PodRequest,
    Pool,
    Reason,
    Unschedulable,
    schedule,
)
from tfpolicy.scheduler.scoring import gpu_score, tflops_for_percent


def pod(name: str, **kw: object) -> PodRequest:
    return PodRequest(name=name, pool="p", **kw)  # type: ignore[arg-type]


def test_percent_converts_to_whole_tflops_truncated() -> None:
    # §9 item 12: int64(percent × capacity / 100): 25 % of 149.7 is 37, not 37.425
    assert tflops_for_percent(25_000, 149_700) == 37_000
    assert tflops_for_percent(12_500, 65_000) == 8_000
    alloc = schedule(allocator(cluster({"n": ("p", L4, 1)})), pod("a", percent_request=50_000))
    assert isinstance(alloc, Allocation) and alloc.tflops == (60_000,)


def test_score_is_weighted_and_rounded_half_away() -> None:
    assert gpu_score(100, 100, 100, 100, used=False) == 100
    assert gpu_score(100, 100, 100, 100, used=True) == 0
    # vram 50 % free, tflops 0 % free: 0.7×50 + 0.3×0 = 35 (avail), 65 (used)
    assert gpu_score(0, 100, 50, 100, used=False) == 35
    assert gpu_score(0, 100, 50, 100, used=True) == 65
    # 0.7×5 + 0.3×0 = 3.5 rounds to 4
    assert gpu_score(0, 100, 5, 100, used=False) == 4


def test_shared_takes_only_a_completely_idle_gpu() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 2)}))
    schedule(alloc, pod("small", tflops_request=1_000, vram_request=1))
    shared = schedule(alloc, pod("whole", isolation=Isolation.SHARED))
    assert isinstance(shared, Allocation) and shared.gpus == ("n-g1",)
    assert alloc.ledger.gpus["n-g1"].avail_tflops == 0
    third = alloc.choose(pod("again", isolation=Isolation.SHARED))
    assert isinstance(third, Unschedulable)
    alloc.ledger.release(("default", "whole"))
    assert alloc.ledger.gpus["n-g1"].idle  # release restores capacity


def test_limits_never_block_placement() -> None:
    alloc = allocator(cluster({"n": ("p", L4, 1)}))
    for i in range(4):
        got = schedule(alloc, pod(f"p{i}", tflops_request=30_000, tflops_limit=121_000,
                                  vram_request=6_144, vram_limit=24_576))
        assert isinstance(got, Allocation)
    assert alloc.ledger.gpus["n-g0"].limit_tflops == 4 * 121_000


def test_node_compact_gpu_low_load_packs_nodes_and_spreads_gpus() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 2), "b": ("p", A100, 2)}))
    first = schedule(alloc, pod("1", tflops_request=100_000, vram_request=8_192))
    second = schedule(alloc, pod("2", tflops_request=100_000, vram_request=8_192))
    assert isinstance(first, Allocation) and isinstance(second, Allocation)
    assert (first.gpus, second.gpus) == (("a-g0",), ("a-g1",))  # same node, other GPU


def test_compact_first_packs_gpus_and_low_load_first_spreads_nodes() -> None:
    packed = allocator(cluster({"a": ("p", A100, 2), "b": ("p", A100, 2)},
                               Placement.COMPACT_FIRST))
    spread = allocator(cluster({"a": ("p", A100, 2), "b": ("p", A100, 2)},
                               Placement.LOW_LOAD_FIRST))
    for alloc in (packed, spread):
        for name in ("1", "2"):
            schedule(alloc, pod(name, tflops_request=100_000, vram_request=8_192))
    assert packed.ledger.allocation(("default", "2")).gpus == ("a-g0",)  # type: ignore[union-attr]
    assert spread.ledger.allocation(("default", "2")).gpus == ("b-g0",)  # type: ignore[union-attr]


def test_multi_gpu_pods_stay_on_one_node() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 2), "b": ("p", A100, 4)}))
    got = alloc.choose(pod("x", count=3, isolation=Isolation.SHARED))
    assert isinstance(got, Choice) and got.node == "b" and len(got.gpus) == 3
    assert isinstance(alloc.choose(pod("y", count=5, isolation=Isolation.SHARED)), Unschedulable)


def test_max_workers_per_node() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 1), "b": ("p", A100, 1)},
                              max_workers_per_node=1))
    schedule(alloc, pod("1", tflops_request=1_000))
    got = alloc.choose(pod("2", tflops_request=1_000))
    assert isinstance(got, Choice) and got.node == "b"


def test_device_plugin_pods_use_nodes_outside_pools_and_bin_pack() -> None:
    alloc = allocator(cluster({"free": (None, L4, 4), "pooled": ("p", A100, 2)}))
    native = PodRequest(name="n", kind=PodKind.DEVICE_PLUGIN, count=2)
    got = schedule(alloc, native)
    assert isinstance(got, Allocation) and got.node == "pooled"  # fewest free GPUs first
    # a GPU held by a device-plugin pod is `usedBy` the device plugin for TensorFusion
    tf = alloc.choose(pod("t", tflops_request=1_000))
    assert isinstance(tf, Unschedulable)
    assert tf.message == ("0/2 nodes are available: 1 GPU used by the device plugin, "
                          "1 no GPU of the pool.")
    assert dict(tf.gpu_reasons) == {Reason.USED_BY_DEVICE_PLUGIN: 2}


def test_model_and_vendor_filters() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 1), "l": ("p", L4, 1)}))
    got = alloc.choose(pod("m", tflops_request=1_000, gpu_model="NVIDIA L4"))
    assert isinstance(got, Choice) and got.node == "l"
    none = alloc.choose(pod("v", tflops_request=1_000, vendor="AMD"))
    assert isinstance(none, Unschedulable)
    assert none.message == "0/2 nodes are available: 2 GPU vendor mismatch."


def test_dynamic_isolation_locks_a_gpu_to_its_first_mode() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 1)}))
    schedule(alloc, pod("soft", tflops_request=1_000))
    hard = alloc.choose(pod("hard", tflops_request=1_000, isolation=Isolation.HARD))
    assert isinstance(hard, Unschedulable)
    assert hard.message == "0/1 nodes are available: 1 GPU isolation mode conflict."


def test_gpu_indices_keep_only_those_gpus() -> None:
    # filter/gpu_index_filter.go: a GPU whose status.index is not listed (or unset) is dropped
    inventory = Inventory.build([Pool("p")], [
        GPU(f"n-g{i}", "n", "p", A100[0], "NVIDIA", A100[1], A100[2], index=i) for i in range(3)
    ] + [GPU("m-g0", "m", "p", A100[0], "NVIDIA", A100[1], A100[2])], default_pool="p")
    for alloc in (FastAllocator(Ledger(inventory)), OracleAllocator(Ledger(inventory))):
        got = alloc.choose(pod("i", tflops_request=1_000, gpu_indices=(2, 0), count=2))
        assert got == Choice("n", ("n-g0", "n-g2"))
        none = alloc.choose(pod("j", tflops_request=1_000, gpu_indices=(7,)))
        assert isinstance(none, Unschedulable)
        assert none.message == ("0/2 nodes are available: 2 GPU index not among the "
                                "requested gpu-indices.")
