"""Per workload, what its placed pods hold after a step: read off the ledger's allocations.

A device-plugin or shared pod holds its GPUs whole; any other pod its
requests (per GPU, summed over its GPUs). Pods still pending hold nothing.
"""

from __future__ import annotations

from collections import defaultdict

from tfpolicy.plan.step_reports import WorkloadUse
from tfpolicy.scheduler import Isolation, Ledger, PodKind
from tfpolicy.scheduler.ledger import Allocation


def workload_uses(ledger: Ledger) -> tuple[WorkloadUse, ...]:
    found: dict[str, list[Allocation]] = defaultdict(list)
    for alloc in ledger.allocations():
        found[alloc.pod.workload].append(alloc)
    return tuple(_use(workload, allocs) for workload, allocs in sorted(found.items()))


def _use(workload: str, allocs: list[Allocation]) -> WorkloadUse:
    whole = [a for a in allocs if _whole(a)]
    shares = [a for a in allocs if not _whole(a)]
    native = sum(a.pod.kind is PodKind.DEVICE_PLUGIN for a in allocs)
    return WorkloadUse(workload, len(allocs) - native, native,
                       sum(len(a.gpus) for a in whole), sum(sum(a.tflops) for a in shares),
                       sum(sum(a.vram) for a in shares), tuple(sorted({a.node for a in allocs})))


def _whole(alloc: Allocation) -> bool:
    return alloc.pod.kind is PodKind.DEVICE_PLUGIN or alloc.pod.isolation is Isolation.SHARED
