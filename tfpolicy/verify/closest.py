"""Which step of the ladder the cluster shows, when it is not the step asked.

A snapshot taken at another step (a ``--step`` mistyped, a rung not yet synced, a
configuration ahead of the cluster) makes every count disagree: the report says which
step the counts match better before its verdict, so that a stop is not read as a failed
rollout. The distance of a step is how many pods differ from its expectation, counted
per workload (TensorFusion and native apart); step 0 is the cluster before the first
step, every GPU pod native. Another step is named only when it is strictly closer; a
TensorFusion pod at another share than a step's is off that step too (verify.shares), and of
two steps as close (after "none taken yet") the one nearer the step asked is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tfpolicy.plan import PlanInput, plan_steps
from tfpolicy.verify.expect import Expected, StepPlan, expect
from tfpolicy.verify.shares import Share, same_share
from tfpolicy.verify.verdicts import Shows, WorkloadResult

Seen = Mapping[str, tuple[int, int]]  # workload key → TensorFusion pods, native pods
Shares = Mapping[str, list[Share]]  # workload key → the shares of its TensorFusion pods


def closest_step(given: PlanInput, planned: StepPlan, results: Iterable[WorkloadResult],
                 shares: Shares | None = None) -> Shows | None:
    """``shares``: per workload, the shares its TensorFusion pods hold (verify.shares), which
    tell apart two steps of equal pod counts (takeover-100 and rightsize-100)."""
    seen = {r.workload: (r.seen_tf, r.seen_native) for r in results}
    held = shares or {}
    asked = _distance(planned.workloads, seen, held, before=False)
    if asked == 0:
        return None
    best = Shows(0, "before the first step",
                 _distance(planned.workloads, seen, held, before=True), asked)
    for step in plan_steps([dict(p) for p in given.policies], given.ladder):
        if step.number == planned.step.number or best.off == 0:
            continue
        off = _distance(expect(given, step.number).workloads, seen, held, before=False)
        if _rank(off, step.number, planned) < _rank(best.off, best.number, planned):
            best = Shows(step.number, step.name, off, asked)
    return best if best.off < asked else None


def _rank(off: int, number: int, planned: StepPlan) -> tuple[int, int, int]:
    """Fewer pods off first; of two steps as close, none taken yet, then the one nearer the
    step asked (a rollout between them)."""
    return off, number > 0, abs(number - planned.step.number)


def _distance(expected: Iterable[Expected], seen: Seen, shares: Shares, *,
              before: bool) -> int:
    """Pods off the step's counts; a TensorFusion pod at another share than the step's
    counts as off too."""
    total = 0
    for e in expected:
        if e.error or e.key not in seen:
            continue
        tf, native = (0, e.tensor_fusion + e.native) if before else (e.tensor_fusion, e.native)
        at = seen[e.key][0]
        if not before and e.share is not None and e.key in shares:
            want = e.share
            at -= sum(not same_share(s, want) for s in shares[e.key])
        total += abs(at - tf) + abs(seen[e.key][1] - native) + (seen[e.key][0] - at)
    return total
