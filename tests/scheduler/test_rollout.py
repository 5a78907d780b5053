"""Rollout simulation: each controller's loop, a surge pod waiting for a freed GPU."""

from __future__ import annotations

import pytest
from sched_fixtures import A100, allocator, cluster

from tfpolicy.scheduler import (
    GpuUser,
    Isolation,
    PodKind,
    PodRequest,
    Strategy,
    StrategyType,
    Transition,
    default_strategy,
    place_pods,
    simulate_step,
)
from tfpolicy.scheduler.rollout import scaled


def native(name: str) -> PodRequest:
    return PodRequest(name=name, workload="web", kind=PodKind.DEVICE_PLUGIN)


def shared(name: str) -> PodRequest:
    return PodRequest(name=name, workload="web", pool="p", isolation=Isolation.SHARED)


def _takeover(strategy: Strategy | None, kind: str = "Deployment", gpus: int = 4):
    alloc = allocator(cluster({"n": ("p", A100, gpus)}))
    old = tuple(native(f"old-{i}") for i in range(4))
    assert place_pods(alloc, list(old)) == ()
    new = tuple(shared(f"new-{i}") for i in range(4))
    return simulate_step(alloc, [Transition("web", kind, 4, old, new, strategy)])


def test_surge_needs_peak_capacity() -> None:
    result = _takeover(Strategy(StrategyType.ROLLING, max_surge=1, max_unavailable=0))
    assert not result.fits and result.failure is not None
    assert (result.failure.pod.name, result.failure.old_running) == ("new-0", 4)
    assert result.failure.diagnosis.message == (
        "0/1 nodes are available: 1 GPU used by the device plugin.")


def test_same_step_fits_without_surge_or_with_recreate() -> None:
    assert _takeover(Strategy(StrategyType.ROLLING, max_surge=0, max_unavailable=1)).fits
    result = _takeover(Strategy(StrategyType.RECREATE))
    assert result.fits
    assert (result.before.total.device_plugin, result.after.total.tensor_fusion) == (4, 4)


def test_default_deployment_rollout_fits_on_a_full_cluster() -> None:
    # 25 %/25 % of 4: surge 1, unavailable 1. The surge pod waits while the old
    # ReplicaSet drops to 3 (4 − 1 unavailable); it then takes the GPU freed.
    assert _takeover(None).fits
    assert _takeover(None, gpus=5).fits


def test_no_unavailable_and_no_free_gpu_is_a_deadlock() -> None:
    result = _takeover(Strategy(StrategyType.ROLLING, max_surge=1, max_unavailable=0))
    assert not result.fits and [f.workload for f in result.waiting] == ["web"]
    assert result.failure is not None and result.failure.new_running == 0


def test_statefulset_and_jobs_replace_in_place() -> None:
    assert _takeover(None, kind="StatefulSet").fits
    assert _takeover(None, kind="Job").fits
    assert _takeover(None, kind="PyTorchJob").fits


def test_step_reports_usage_and_cost() -> None:
    result = _takeover(None, gpus=6)
    before, after = result.before.total, result.after.total
    assert (before.device_plugin, before.idle) == (4, 2)
    assert (after.tensor_fusion, after.device_plugin, after.idle) == (4, 0, 2)
    assert after.idle_cost == 2_000_000
    assert result.pools[0].requested_tflops == 4 * 312_000


def test_oversubscription_report() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 1)}, tflops_oversell=200))
    pods = [PodRequest(name=f"f{i}", pool="p", tflops_request=100_000,
                       tflops_limit=312_000, vram_request=8_192) for i in range(3)]
    result = simulate_step(alloc, [Transition("f", "Deployment", 3, (), tuple(pods))])
    assert result.fits
    over = result.oversubscribed
    assert [(g.gpu, g.limit_tflops, g.virtual_tflops) for g in over] == [
        ("n-g0", 936_000, 624_000)]
    assert result.pools[0].oversubscribed and result.pools[0].virtual_tflops == 624_000
    assert GpuUser.TENSOR_FUSION == 1


@pytest.mark.parametrize(("value", "total", "up", "expected"), [
    ("25%", 10, True, 3), ("25%", 10, False, 2), (2, 10, False, 2), ("0%", 3, True, 0),
])
def test_scaled(value: int | str, total: int, up: bool, expected: int) -> None:
    assert scaled(value, total, up) == expected


def test_defaults_per_kind() -> None:
    assert default_strategy("Deployment") == Strategy(StrategyType.ROLLING, "25%", "25%")
    assert default_strategy("StatefulSet").type is StrategyType.ORDERED
    assert default_strategy("DaemonSet").max_unavailable == 1
    assert default_strategy("CronJob").type is StrategyType.ALL_AT_ONCE


def test_statefulset_goes_from_the_highest_ordinal() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 2)}))
    old = (native("s-0"), native("s-1"))
    place_pods(alloc, list(old))
    new = (shared("s-0"), PodRequest(name="s-1", workload="web", pool="p",
                                     isolation=Isolation.SHARED, count=2))
    result = simulate_step(alloc, [Transition("web", "StatefulSet", 2, old, new)])
    # s-1 (2 GPUs) is created while s-0 still holds one GPU: it cannot fit
    assert result.failure is not None and result.failure.pod.name == "s-1"
    assert (result.failure.old_running, result.failure.new_running) == (1, 0)


def _roll_two(concurrent: bool) -> bool:
    # Two Deployments, each with 2 old pods on a full 4-GPU node, maxUnavailable 0:
    # rolled one by one the first deadlocks alone; at once, the same.
    alloc = allocator(cluster({"n": ("p", A100, 4)}))
    steps = []
    for name in ("a", "b"):
        old = tuple(PodRequest(name=f"{name}-old-{i}", workload=name,
                               kind=PodKind.DEVICE_PLUGIN) for i in range(2))
        assert place_pods(alloc, list(old)) == ()
        new = tuple(PodRequest(name=f"{name}-new-{i}", workload=name, pool="p",
                               isolation=Isolation.SHARED) for i in range(2))
        steps.append(Transition(name, "Deployment", 2, old, new,
                                Strategy(StrategyType.ROLLING, 1, 0)))
    return simulate_step(alloc, steps, concurrent=concurrent).fits


def test_deadlock_both_ways_without_unavailability() -> None:
    assert not _roll_two(True) and not _roll_two(False)


def test_concurrent_surges_take_each_others_gpus() -> None:
    # One spare GPU: one by one, each rollout uses it and gives it back. At once, both
    # surge pods wait for that GPU; the first takes it, and the rollouts still finish.
    alloc = allocator(cluster({"n": ("p", A100, 5)}))
    transitions = []
    for name in ("a", "b"):
        old = tuple(PodRequest(name=f"{name}-old-{i}", workload=name,
                               kind=PodKind.DEVICE_PLUGIN) for i in range(2))
        assert place_pods(alloc, list(old)) == ()
        new = tuple(PodRequest(name=f"{name}-new-{i}", workload=name, pool="p",
                               isolation=Isolation.SHARED) for i in range(2))
        transitions.append(Transition(name, "Deployment", 2, old, new,
                                      Strategy(StrategyType.ROLLING, 1, 0)))
    result = simulate_step(alloc, transitions)
    assert result.fits and result.after.total.tensor_fusion == 4


def test_statefulset_partition_keeps_low_ordinals() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 4)}))
    old = tuple(native(f"s-{i}") for i in range(4))
    place_pods(alloc, list(old))
    new = tuple(shared(f"n-{i}") for i in range(4))
    strategy = Strategy(StrategyType.ORDERED, 0, 1, partition=2)
    result = simulate_step(alloc, [Transition("web", "StatefulSet", 4, old, new, strategy)])
    assert result.fits
    assert (result.after.total.device_plugin, result.after.total.tensor_fusion) == (2, 2)


def test_statefulset_on_delete_replaces_nothing() -> None:
    alloc = allocator(cluster({"n": ("p", A100, 2)}))
    old = (native("s-0"), native("s-1"))
    place_pods(alloc, list(old))
    strategy = Strategy(StrategyType.ON_DELETE)
    result = simulate_step(alloc, [Transition("web", "StatefulSet", 2, old,
                                              (shared("n-0"), shared("n-1")), strategy)])
    assert result.fits and result.after.total.device_plugin == 2


def test_canary_weights_step_through() -> None:
    # 4 replicas, canary 50 % then 100 %, maxSurge 1, maxUnavailable 0, one spare GPU.
    alloc = allocator(cluster({"n": ("p", A100, 5)}))
    old = tuple(native(f"old-{i}") for i in range(4))
    place_pods(alloc, list(old))
    strategy = Strategy(StrategyType.ROLLING, 1, 0, canary_weights=(50,))
    new = tuple(shared(f"new-{i}") for i in range(4))
    result = simulate_step(alloc, [Transition("web", "Rollout", 4, old, new, strategy)])
    assert result.fits and result.after.total.tensor_fusion == 4
