"""The scheduler as the operator configures it (reference/tensor-fusion.md §11 rows 8–10)."""

from __future__ import annotations

from sched_fixtures import A100, L4

from tfpolicy.scheduler import (
    GPU,
    Allocation,
    Choice,
    FastAllocator,
    Inventory,
    Isolation,
    IsolationPolicy,
    Ledger,
    OracleAllocator,
    Phase,
    Placement,
    PodKind,
    PodRequest,
    Pool,
    Reason,
    SchedulerSettings,
    Unschedulable,
    schedule,
    select_gpus,
)

PROGRESSIVE = SchedulerSettings(progressive_migration=True)
STATIC = SchedulerSettings(isolation_policy=IsolationPolicy.STATIC)


def gpu(name: str, node: str, pool: str | None = "p", model: tuple[str, int, int] = A100,
        **kw: object) -> GPU:
    return GPU(name, node, pool, model[0], "NVIDIA", model[1], model[2], **kw)  # type: ignore[arg-type]


def both(inventory: Inventory, settings: SchedulerSettings | None = None
         ) -> tuple[FastAllocator, OracleAllocator]:
    ledger = Ledger(inventory, settings)
    return FastAllocator(ledger), OracleAllocator(ledger)


def tf(name: str, **kw: object) -> PodRequest:
    return PodRequest(name=name, pool="p", **kw)  # type: ignore[arg-type]


def native(name: str, count: int = 1) -> PodRequest:
    return PodRequest(name=name, kind=PodKind.DEVICE_PLUGIN, count=count)


def test_defaults_are_the_helm_chart_values() -> None:
    assert SchedulerSettings() == SchedulerSettings(IsolationPolicy.DYNAMIC, False, 700, 300)
    inventory = Inventory.build([Pool("p")], [gpu("g", "n")])
    assert Ledger(inventory).settings == SchedulerSettings()
    carried = Inventory.build([Pool("p")], [gpu("g", "n")], settings=STATIC)
    assert Ledger(carried).settings is STATIC  # the inventory's, unless given
    assert Ledger(carried, PROGRESSIVE).settings is PROGRESSIVE


def test_partitioned_is_unschedulable_under_the_dynamic_policy() -> None:
    # gpuallocator.go:642-644: "dynamic policy does not support partitioned allocation"
    for alloc in both(Inventory.build([Pool("p")], [gpu("g0", "a"), gpu("g1", "b")])):
        got = alloc.choose(tf("x", isolation=Isolation.PARTITIONED, tflops_request=1_000))
        assert isinstance(got, Unschedulable)
        assert got.node_reasons == ((Reason.PARTITIONED_DYNAMIC, 2),)
        assert got.message == ("0/2 nodes are available: 2 dynamic policy does not "
                               "support partitioned allocation.")


def test_partitioned_under_the_static_policy_is_refused_as_not_simulated() -> None:
    for alloc in both(Inventory.build([Pool("p")], [gpu("g0", "a")]), STATIC):
        got = alloc.choose(tf("x", isolation=Isolation.PARTITIONED, tflops_request=1_000))
        assert isinstance(got, Unschedulable)
        assert got.node_reasons == ((Reason.PARTITIONED_NOT_SIMULATED, 1),)


def test_a_gpu_advertising_another_policy_is_never_used() -> None:
    # isGPUIsolationCompatible: the GPU's status.isolationPolicy must match the scheduler's
    inventory = Inventory.build([Pool("p", isolation_policy=IsolationPolicy.STATIC)],
                                [gpu("g0", "a")])
    for alloc in both(inventory):
        got = alloc.choose(tf("x", tflops_request=1_000))
        assert isinstance(got, Unschedulable)
        assert got.node_reasons == ((Reason.ISOLATION_CONFLICT, 1),)
    for alloc in both(inventory, STATIC):
        assert isinstance(alloc.choose(tf("x", tflops_request=1_000)), Choice)


def test_static_policy_checks_the_gpu_mode_not_the_first_pod() -> None:
    inventory = Inventory.build([Pool("p")], [gpu("g0", "a", isolation_mode=Isolation.SOFT)])
    fast, oracle = both(inventory, STATIC)
    schedule(fast, tf("soft", tflops_request=1_000))
    for alloc in (fast, oracle):
        hard = alloc.choose(tf("hard", tflops_request=1_000, isolation=Isolation.HARD))
        assert isinstance(hard, Unschedulable)
        assert isinstance(alloc.choose(tf("soft2", tflops_request=1_000)), Choice)


def test_progressive_migration_keeps_native_pods_off_nodes_with_workers() -> None:
    inventory = Inventory.build([Pool("p")], [gpu("a0", "a"), gpu("a1", "a"), gpu("b0", "b")])
    fast, oracle = both(inventory, PROGRESSIVE)
    placed = schedule(fast, tf("worker", tflops_request=1_000))
    assert isinstance(placed, Allocation) and placed.node == "a"
    for alloc in (fast, oracle):
        got = alloc.choose(native("n"))
        assert isinstance(got, Choice) and got.node == "b"  # "a" has the most free GPUs left
        two = alloc.choose(native("two", count=2))
        assert isinstance(two, Unschedulable)
        assert dict(two.node_reasons) == {Reason.NATIVE_NODE_IN_USE: 1, Reason.GPU_BUSY: 1}
    fast.ledger.release(placed.pod.key)  # the worker leaves: the node is usable again
    for alloc in (fast, oracle):
        assert alloc.choose(native("two", count=2)) == Choice("a", ("a0", "a1"))


def test_progressive_migration_keeps_native_pods_to_tensor_fusion_nodes() -> None:
    # ListNonUsingNodes lists only nodes the allocator holds GPU objects for
    inventory = Inventory.build([Pool("p")], [gpu("t0", "legacy", pool=None, model=L4)])
    for alloc in both(inventory, PROGRESSIVE):
        got = alloc.choose(native("n"))
        assert isinstance(got, Unschedulable)
        assert got.node_reasons == ((Reason.NATIVE_NODE_UNMANAGED, 1),)
    for alloc in both(inventory):
        assert alloc.choose(native("n")) == Choice("legacy", ("t0",))


def test_progressive_migration_counts_allocations_made_outside_the_plan() -> None:
    inventory = Inventory.build([Pool("p")], [gpu("a0", "a", external_tflops=10_000),
                                              gpu("a1", "a"), gpu("b0", "b")])
    for alloc in both(inventory, PROGRESSIVE):
        assert alloc.choose(native("n")) == Choice("b", ("b0",))


def test_node_score_averages_compatible_gpus_of_every_pool() -> None:
    # Node "a" has one GPU of pool p and three busy GPUs of pool q; node "b" two idle p GPUs.
    # The plugin's mean counts q's GPUs, so "a" looks packed (used% high) and wins under
    # NodeCompactGPULowLoad; averaging over p's GPUs alone would tie at 0 and pick "a" by
    # name too, so make "b" come first by name to see the difference.
    gpus = [gpu("z0", "z"), *(gpu(f"z{i}", "z", pool="q", external_tflops=312_000,
                                  external_vram=81_920) for i in (1, 2, 3)),
            gpu("b0", "b"), gpu("b1", "b")]
    for alloc in both(Inventory.build([Pool("p"), Pool("q")], gpus)):
        assert alloc.choose(tf("x", tflops_request=1_000)) == Choice("z", ("z0",))


def test_incompatible_gpus_stay_out_of_the_node_score() -> None:
    # Dynamic policy: a GPU locked to `hard` is not compatible with a `soft` pod, so its
    # (full) usage does not make its node look packed.
    inventory = Inventory.build([Pool("p")], [gpu("z0", "z"), gpu("z1", "z"),
                                              gpu("b0", "b"), gpu("b1", "b")])
    fast, oracle = both(inventory)
    schedule(fast, tf("h", tflops_request=300_000, vram_request=80_000,
                      isolation=Isolation.HARD))  # lands on b0 (name order on a tie)
    for alloc in (fast, oracle):
        got = alloc.choose(tf("s", tflops_request=1_000))
        assert got == Choice("b", ("b1",))  # 1 GPU of "b" compatible, 0 %: ties "z", name wins


def test_only_pending_gpus_are_divided_by_four() -> None:
    # gpuallocator.go:2118-2121: Pending ÷ 4; an Unknown GPU keeps its full score
    busy = {"external_tflops": 312_000, "external_vram": 81_920}
    pending = [gpu("a0", "a"), gpu("a1", "a", phase=Phase.PENDING, **busy)]
    unknown = [gpu("b0", "b"), gpu("b1", "b", phase=Phase.UNKNOWN, **busy)]
    for alloc in both(Inventory.build([Pool("p")], pending + unknown)):
        assert alloc.choose(tf("x", tflops_request=1_000)) == Choice("b", ("b0",))


def test_score_weights_change_the_choice() -> None:
    # "a": TFLOPS mostly used, VRAM free; "b": VRAM mostly used, TFLOPS free
    gpus = [gpu("a0", "a", external_tflops=300_000), gpu("b0", "b", external_vram=70_000)]
    inventory = Inventory.build([Pool("p")], gpus)
    vram_heavy = SchedulerSettings(vram_weight=1000, tflops_weight=0)
    tflops_heavy = SchedulerSettings(vram_weight=0, tflops_weight=1000)
    for alloc in both(inventory, vram_heavy):
        assert alloc.choose(tf("x", tflops_request=1_000)) == Choice("b", ("b0",))
    for alloc in both(inventory, tflops_heavy):
        assert alloc.choose(tf("x", tflops_request=1_000)) == Choice("a", ("a0",))


def test_low_load_first_uses_the_same_mean() -> None:
    gpus = [gpu("a0", "a"), gpu("a1", "a", pool="q", external_tflops=312_000,
                                external_vram=81_920), gpu("b0", "b")]
    inventory = Inventory.build([Pool("p", Placement.LOW_LOAD_FIRST), Pool("q")], gpus)
    for alloc in both(inventory):
        assert alloc.choose(tf("x", tflops_request=1_000)) == Choice("b", ("b0",))


def test_the_plugin_ranks_by_the_mean_and_select_gpus_by_the_sum() -> None:
    # §11 row 10: the scheduler plugin (what places pods) averages; SelectGPUs (Alloc,
    # defrag) sums, so a node with more, busier GPUs wins there.
    half = SchedulerSettings(vram_weight=500, tflops_weight=500)

    def busy(name: str, node: str, cap: tuple[int, int], avail: tuple[int, int]) -> GPU:
        return GPU(name, node, "p", "X", "NVIDIA", cap[0] * 1000, cap[1] * 1024,
                   external_tflops=(cap[0] - avail[0]) * 1000,
                   external_vram=(cap[1] - avail[1]) * 1024)
    gpus = [busy("1-1", "one", (20, 80), (10, 40)), busy("1-2", "one", (20, 80), (12, 42)),
            busy("1-3", "one", (20, 80), (14, 44)), busy("2-1", "two", (25, 100), (20, 80)),
            busy("2-2", "two", (25, 100), (18, 75))]
    inventory = Inventory.build([Pool("p", Placement.LOW_LOAD_FIRST)], gpus)
    fast, oracle = both(inventory, half)
    for alloc in (fast, oracle):
        assert alloc.choose(tf("x", count=2)) == Choice("two", ("2-1", "2-2"))
    assert select_gpus(fast.ledger, tf("x", count=2)) == Choice("one", ("1-3", "1-2"))
