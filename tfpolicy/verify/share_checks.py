"""The shares check of one workload: its TensorFusion pods at another share than the step's
(:mod:`tfpolicy.verify.shares` says how a share is read and compared).

A pod at another share is one the step has not replaced yet while the workload rolls: a
pod of an earlier ReplicaSet (``old``, or an Argo Rollout's ``stable``), or, for kinds
without ReplicaSets, any while fewer pods run at the step's share than the step runs.
Otherwise the rollout is done and the step's own pods hold another share: a stop.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from tfpolicy.records import replace
from tfpolicy.verify.expect import Expected
from tfpolicy.verify.pods import PodState
from tfpolicy.verify.shares import Share, said, same_share
from tfpolicy.verify.verdicts import Problem, Verdict

_EARLIER = ("old", "stable")  # ReplicaSet roles of the revision a rollout replaces
_ROLLING = "the rollout is in progress"
_EARLIER_SAID = "pods of an earlier revision: " + _ROLLING
_DONE = ("the rollout is done and the step's pods hold another share (the template "
         "differs from the plan's, or a WorkloadProfile or the operator's autoscaler "
         "sets it)")


def with_stale(state: PodState, expected: Expected | None) -> PodState:
    """``state`` marked stale when it runs at another share than the step gives."""
    if expected is None or expected.share is None or state.share is None or not state.active:
        return state
    return state if same_share(state.share, expected.share) else replace(state, stale=True)


def at_step(pods: list[PodState]) -> int:
    """The TensorFusion pods that hold the step's share (finished ones count as they ran)."""
    return sum(p.tensor_fusion and not p.stale for p in pods if p.active or p.done)


def share_problems(expected: Expected, pods: list[PodState],
                   roles: Mapping[str, str]) -> list[Problem]:
    """One problem per verdict and share seen, naming up to three of its pods."""
    want = expected.share
    if want is None:
        return []
    short = at_step(pods) < expected.tensor_fusion
    groups: dict[tuple[Verdict, str, Share], list[str]] = defaultdict(list)
    for pod in (p for p in pods if p.stale and p.share is not None):
        assert pod.share is not None
        groups[(*_why(roles.get(pod.owner), short), pod.share)].append(pod.name)
    return [Problem(verdict, expected.key, f"{len(names)} TensorFusion pods ({_names(names)}) "
                    f"run at {said(seen)}; the step gives each {said(want)}: {why}")
            for (verdict, why, seen), names in sorted(groups.items(), key=_order)]


def _why(role: str | None, short: bool) -> tuple[Verdict, str]:
    if role in _EARLIER:
        return Verdict.WAIT, _EARLIER_SAID
    if role is None and short:
        return Verdict.WAIT, _ROLLING
    return Verdict.STOP, _DONE


def _names(names: list[str]) -> str:
    return ", ".join(sorted(names)[:3]) + (", …" if len(names) > 3 else "")


def _order(item: tuple[tuple[Verdict, str, Share], list[str]]) -> tuple[int, str, str]:
    (verdict, why, seen), _ = item
    return -verdict, said(seen), why
