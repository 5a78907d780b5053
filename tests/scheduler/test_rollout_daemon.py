"""DaemonSet rollouts node by node, canary pauses, and pods bound to one node."""

from __future__ import annotations

from sched_fixtures import A100, allocator, cluster

from tfpolicy.scheduler import (
    Choice,
    Isolation,
    Ledger,
    OracleAllocator,
    PodKind,
    PodRequest,
    Reason,
    StepResult,
    Strategy,
    StrategyType,
    Transition,
    Unschedulable,
    place_pods,
    simulate_step,
)
from tfpolicy.scheduler.fast import FastAllocator


def _old(node: str, i: int) -> PodRequest:
    return PodRequest(name=f"agent-{i}", workload="agent", kind=PodKind.DEVICE_PLUGIN, node=node)


def _new(i: int) -> PodRequest:
    return PodRequest(name=f"agent-new-{i}", workload="agent", pool="p",
                      isolation=Isolation.SHARED)


def _daemon(sizes: dict[str, int], surge: int,
            unavailable: int) -> tuple[bool, FastAllocator, StepResult]:
    alloc = allocator(cluster({n: ("p", A100, g) for n, g in sizes.items()}))
    old = tuple(_old(node, i) for i, node in enumerate(sizes))
    assert place_pods(alloc, list(old)) == ()
    new = tuple(_new(i) for i in range(len(old)))
    strategy = Strategy(StrategyType.ROLLING, surge, unavailable, round_up_unavailable=True)
    result = simulate_step(alloc, [Transition("agent", "DaemonSet", len(old), old, new,
                                              strategy)])
    return result.fits, alloc, result


def _nodes(alloc: FastAllocator) -> dict[str, str]:
    return {a.pod.name: a.node for a in alloc.ledger.allocations()}


def test_surge_pod_needs_room_on_its_own_node() -> None:
    # b has a free GPU, but the new pod of a's agent may only start on a, which is full.
    fits, _, result = _daemon({"a": 1, "b": 2}, surge=1, unavailable=0)
    assert not fits
    failure = result.failure
    assert failure is not None
    assert failure.pod.name == "agent-new-0" and failure.pod.node == "a"
    assert failure.diagnosis.message == (
        "0/2 nodes are available: 1 GPU used by the device plugin, "
        "1 node(s) didn't match Pod's node affinity/selector.")


def test_surge_starts_the_new_pod_beside_the_old_one() -> None:
    fits, alloc, _ = _daemon({"a": 2, "b": 2}, surge=1, unavailable=0)
    assert fits
    assert _nodes(alloc) == {"agent-new-0": "a", "agent-new-1": "b"}


def test_without_surge_each_node_frees_its_gpu_first() -> None:
    fits, alloc, _ = _daemon({"a": 1, "b": 1}, surge=0, unavailable=1)
    assert fits
    assert _nodes(alloc) == {"agent-new-0": "a", "agent-new-1": "b"}


def test_canary_pause_holds_the_weight_reached() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 4)}))
    old = tuple(PodRequest(name=f"old-{i}", workload="web", kind=PodKind.DEVICE_PLUGIN)
                for i in range(4))
    assert place_pods(alloc, list(old)) == ()
    new = tuple(_new(i) for i in range(4))
    strategy = Strategy(StrategyType.ROLLING, 1, 1, canary_weights=(25, 50), paused_at=50)
    result = simulate_step(alloc, [Transition("web", "Rollout", 4, old, new, strategy)])
    assert result.fits
    # two new pods run beside the two newest old ones; the rest waits for a promotion
    assert sorted(_nodes(alloc)) == ["agent-new-0", "agent-new-1", "old-2", "old-3"]


def test_both_allocators_keep_a_bound_pod_on_its_node() -> None:
    inventory = cluster({"a": ("p", A100, 1), "b": ("p", A100, 1), "c": ("p", A100, 1)})
    pod = PodRequest(name="x", pool="p", node="b")
    for alloc in (FastAllocator(Ledger(inventory)), OracleAllocator(Ledger(inventory))):
        assert alloc.choose(pod) == Choice("b", ("b-g0",))
        alloc.ledger.reserve(PodRequest(name="y", pool="p", isolation=Isolation.SHARED),
                             ("b-g0",))
        found = alloc.choose(pod)
        assert isinstance(found, Unschedulable)
        assert dict(found.node_reasons)[Reason.NODE_AFFINITY] == 2
