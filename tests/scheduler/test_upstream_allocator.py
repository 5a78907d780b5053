"""Run upstream's allocator and scheduler-plugin cases (`upstream_cases.py`) on our scheduler.

Every case runs both allocators on one ledger; an xfail is strict, so a case
marked as not simulated that starts passing is reported.
"""

from __future__ import annotations

import pytest
from upstream_cases import CASES, Case, G, P

from tfpolicy.scheduler import (
    GPU,
    Choice,
    FastAllocator,
    Inventory,
    Ledger,
    OracleAllocator,
    PodKind,
    PodRequest,
    Pool,
    Unschedulable,
    select_gpus,
)
from tfpolicy.scheduler.rules import native_node_reason, node_score, resolve_pool
from tfpolicy.scheduler.select import candidates


def _gpu(g: G) -> GPU:
    cap_t, cap_v = round(g.cap[0] * 1000), round(g.cap[1] * 1024)
    avail_t, avail_v = g.avail or g.cap
    return GPU(g.name, g.node, g.pool, g.model, g.vendor, cap_t, cap_v, phase=g.phase,
               used_by=g.used_by, isolation_mode=g.mode, isolation_conflict=g.conflict,
               index=g.index, isolations=g.caps, partitions=g.partitions,
               external_tflops=cap_t - round(avail_t * 1000),
               external_vram=cap_v - round(avail_v * 1024))


def _pod(p: P) -> PodRequest:
    return PodRequest(
        name=p.name, kind=p.kind, pool=p.pool, count=p.count, isolation=p.isolation,
        tflops_request=round(p.tflops * 1000), percent_request=round(p.percent * 1000),
        vram_request=round(p.vram * 1024), gpu_model=p.model, gpu_indices=p.indices)


def _ledger(case: Case) -> Ledger:
    names = sorted({g.pool for g in case.gpus if g.pool is not None})
    pools = [Pool(n, case.placement, max_workers_per_node=case.max_workers) for n in names]
    ledger = Ledger(Inventory.build(pools, [_gpu(g) for g in case.gpus],
                                    default_pool="p"), case.settings)
    for placed in case.placed:
        ledger.reserve(_pod(placed), placed.on)
    if case.release:
        for placed in case.placed:
            ledger.release(_pod(placed).key)
    return ledger


def _check_filters(case: Case, ledger: Ledger, pod: PodRequest) -> None:
    found = candidates(ledger, pod)
    if case.filter is not None:
        assert sorted(s.gpu.name for states in found.values() for s in states) == sorted(
            case.filter)
    if case.nodes is not None:
        nodes = (sorted(n for n in ledger.node_gpus if native_node_reason(ledger, n) is None)
                 if pod.kind is PodKind.DEVICE_PLUGIN else sorted(found))
        assert nodes == sorted(case.nodes)
    pool = resolve_pool(ledger, pod)
    for node, score in case.scores.items():
        assert pool is not None and node_score(ledger, node, pool, pod.isolation) == score


def _check_choices(case: Case, ledger: Ledger, pod: PodRequest) -> None:
    if case.select != "-":
        assert select_gpus(ledger, pod) == case.select
    if case.choice == "-":
        return
    fast, oracle = FastAllocator(ledger), OracleAllocator(ledger)
    for allocator in (fast, oracle):
        got = allocator.choose(pod)
        if case.choice is None:
            assert isinstance(got, Unschedulable), got
        else:
            assert got == case.choice
    if isinstance(case.choice, Choice):
        ledger.reserve(pod, case.choice.gpus)


@pytest.mark.parametrize("case", [
    pytest.param(c, id=f"{c.source.rsplit('/', 1)[1]} {c.title}",
                 marks=[pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else [])
    for c in CASES])
def test_upstream_case(case: Case) -> None:
    ledger = _ledger(case)
    pod = _pod(case.pod)
    _check_filters(case, ledger, pod)
    _check_choices(case, ledger, pod)
    for name, (tflops, vram) in case.after.items():
        state = ledger.gpus[name]
        assert (state.avail_tflops, state.avail_vram) == (round(tflops * 1000),
                                                          round(vram * 1024))


def test_enough_cases_are_ported() -> None:
    assert len(CASES) >= 20
    assert all(":" in c.source and c.source.startswith("internal/") for c in CASES)
