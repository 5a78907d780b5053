"""Node consolidation: drain what re-places elsewhere, respect PDBs, undo a failed drain."""

from __future__ import annotations

from sched_fixtures import A100, allocator, cluster

from tfpolicy.scheduler import (
    Isolation,
    PodKind,
    PodRequest,
    consolidate,
    lower_bound,
    place_pods,
    usage,
)


def soft(name: str, workload: str, tflops: int) -> PodRequest:
    return PodRequest(name=name, workload=workload, pool="p", tflops_request=tflops,
                      vram_request=8_192)


def _spread():
    # Three 2-GPU nodes, one 100-TFLOPS pod on each: all three in use, one node is enough.
    alloc = allocator(cluster({f"n{i}": ("p", A100, 2) for i in range(3)}))
    for i in range(3):
        alloc.ledger.cordon(f"n{(i + 1) % 3}")
        alloc.ledger.cordon(f"n{(i + 2) % 3}")
        assert place_pods(alloc, [soft(f"w-{i}", "w", 100_000)]) == ()
        alloc.ledger.cordon(f"n{(i + 1) % 3}", on=False)
        alloc.ledger.cordon(f"n{(i + 2) % 3}", on=False)
    return alloc


def test_drains_to_the_bound() -> None:
    alloc = _spread()
    assert {a.node for a in alloc.ledger.allocations()} == {"n0", "n1", "n2"}
    assert lower_bound(alloc.ledger) == 1
    result = consolidate(alloc, {})
    assert (result.nodes_before, result.nodes_after, result.lower_bound) == (3, 1, 1)
    # Greedy, like a scale-down pass: a pod moved once moves again when its node goes too.
    assert (len(result.removed), result.evictions, result.gpus_freed) == (2, 3, 4)
    assert result.cost_freed == 4 * 1_000_000  # the fixture's per-GPU price
    assert len({a.node for a in alloc.ledger.allocations()}) == 1


def test_a_budget_of_zero_keeps_every_node() -> None:
    alloc = _spread()
    result = consolidate(alloc, {"w": 0})
    assert (result.nodes_after, result.removed, result.blocked_by_budget) == (3, (), 3)


def test_daemon_pods_do_not_hold_a_node() -> None:
    alloc = _spread()
    result = consolidate(alloc, {"w": 0}, daemons=frozenset({"w"}))
    assert len(result.removed) == 3 and result.evictions == 0


def test_a_failed_drain_is_undone_exactly() -> None:
    # Two full nodes of whole-GPU pods: nothing can move, and the ledger is as it was.
    alloc = allocator(cluster({"a": ("p", A100, 2), "b": ("p", A100, 2)}))
    pods = [PodRequest(name=f"d{i}", workload="d", kind=PodKind.DEVICE_PLUGIN) for i in range(3)]
    pods.append(PodRequest(name="s", workload="s", pool="p", isolation=Isolation.SHARED))
    assert place_pods(alloc, pods) == ()
    before = alloc.ledger.allocations()
    result = consolidate(alloc, {})
    assert result.removed == () and alloc.ledger.allocations() == before
    assert usage(alloc.ledger).total.idle == 0 and not alloc.ledger.cordoned
