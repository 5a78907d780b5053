"""Which step of the ladder the cluster shows, when it is not the step asked.

A snapshot taken at another step (a ``--step`` mistyped, a rung not yet synced, a
configuration ahead of the cluster) makes every count disagree: the report says which
step the counts match better before its verdict, so that a stop is not read as a failed
rollout. The distance of a step is how many pods differ from its expectation, counted
per workload (TensorFusion and native apart); step 0 is the cluster before the first
step, every GPU pod native. Another step is named only when it is strictly closer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tfpolicy.plan import PlanInput, plan_steps
from tfpolicy.verify.expect import Expected, StepPlan, expect
from tfpolicy.verify.verdicts import Shows, WorkloadResult

Seen = Mapping[str, tuple[int, int]]  # workload key → TensorFusion pods, native pods


def closest_step(given: PlanInput, planned: StepPlan,
                 results: Iterable[WorkloadResult]) -> Shows | None:
    seen = {r.workload: (r.seen_tf, r.seen_native) for r in results}
    asked = _distance(planned.workloads, seen, before=False)
    if asked == 0:
        return None
    best = Shows(0, "before the first step", _distance(planned.workloads, seen, before=True),
                 asked)
    for step in plan_steps([dict(p) for p in given.policies], given.ladder):
        if step.number == planned.step.number or best.off == 0:
            continue
        off = _distance(expect(given, step.number).workloads, seen, before=False)
        if off < best.off:
            best = Shows(step.number, step.name, off, asked)
    return best if best.off < asked else None


def _distance(expected: Iterable[Expected], seen: Seen, *, before: bool) -> int:
    total = 0
    for e in expected:
        if e.error or e.key not in seen:
            continue
        tf, native = (0, e.tensor_fusion + e.native) if before else (e.tensor_fusion, e.native)
        total += abs(seen[e.key][0] - tf) + abs(seen[e.key][1] - native)
    return total
