"""What promote does with verify's answer: advance, done, wait or stop (docs/promote.md).

In this order:

1. a snapshot older than the commit that set the rung cannot show it: wait;
   unless the rung changes no pod template of the rung before (takeover-1 →
   takeover-25 on a 4-replica Deployment writes the same cap): then no sync
   has anything to show, and the cluster shows the rung as it shows the one
   before;
2. verify says ready: a failing gate stops, a gate short of data waits
   (docs/gates.md); wait while a TensorFusion pod has been ready for less
   than ``--min-soak``; else advance (done at the last rung);
3. verify says wait: wait;
4. verify says stop, but the previous rung is ready in the same snapshot:
   the cluster has not received the rung yet (the sync has not happened):
   wait, never a rollback of what the cluster does not run;
5. otherwise stop: the rollback rung.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from tfpolicy.gates import Outcome as GateOutcome
from tfpolicy.gates.render import reasons, tally
from tfpolicy.gitops import Judgement, State
from tfpolicy.promote.rungs import WHOLE_CARDS, Position
from tfpolicy.promote.soak import shown
from tfpolicy.records import Record, replace
from tfpolicy.verify import Report, Verdict


class Outcome(Enum):
    ADVANCE = "advance"
    DONE = "done"
    WAIT = "wait"
    STOP = "stop"


class Decision(Record):
    outcome: Outcome
    reasons: tuple[str, ...]  # why, one line each, for the output and the commit message


class Evidence(Record):
    """What the decision is made on."""

    at: Position
    report: Report  # verify, for the rung the configuration names
    previous: Report | None  # verify, for the rung before it (None: not run)
    taken: datetime  # the snapshot's time
    since: datetime | None  # when the rung was committed (None: unknown)
    young: tuple[str, ...] = ()  # TensorFusion pods ready for less than the minimum
    soak: int = 0  # the minimum, in seconds
    youngest: int | None = None  # the shortest a TensorFusion pod has been ready (None: no pod)
    same_pods: bool = False  # the rung writes the pod templates of the rung before
    sync: Judgement | None = None  # what Argo CD or Flux says (None: not asked)


def promotion_verdict(evidence: Evidence) -> Decision:
    sync = evidence.sync
    if sync is None:
        return _by_times(evidence)
    if sync.state is State.WAIT:
        return Decision(Outcome.WAIT, sync.reasons)
    if sync.state is State.STOP:
        return Decision(Outcome.STOP, (*sync.reasons,
                                       f"roll back to {evidence.at.rollback_name}"))
    decision = (_decided(replace(evidence, since=None)) if sync.state is State.SHOWN
                else _by_times(evidence))
    return Decision(decision.outcome, (*sync.reasons, *decision.reasons))


def _by_times(evidence: Evidence) -> Decision:
    at = evidence.at
    if evidence.same_pods and evidence.since is not None and evidence.taken < evidence.since:
        decision = _decided(evidence)
        return Decision(decision.outcome, (f"{at.name} changes no pod template of "
                                           f"{at.previous_name}: the snapshot need not be "
                                           "newer than its commit", *decision.reasons))
    return _decided(evidence)


def _decided(evidence: Evidence) -> Decision:
    at, report = evidence.at, evidence.report
    if (not evidence.same_pods and evidence.since is not None
            and evidence.taken < evidence.since):
        return Decision(Outcome.WAIT, (
            f"the snapshot ({_iso(evidence.taken)}) is older than the commit that set "
            f"{at.name} ({_iso(evidence.since)}): it cannot show the rung; take it again "
            "after the sync",))
    if report.cluster_verdict is Verdict.READY:
        return _gated(evidence) or _ready(evidence)
    if report.cluster_verdict is Verdict.WAIT:
        return Decision(Outcome.WAIT, (f"verify step {report.step}: wait, the rollout is in "
                                       "progress", *_previous_ready(evidence)))
    if evidence.previous is not None and evidence.previous.verdict is Verdict.READY:
        return Decision(Outcome.WAIT, (f"verify step {report.step}: not taken yet",
                                       *_previous_ready(evidence)))
    return Decision(Outcome.STOP, (f"verify step {report.step}: stop; roll back to "
                                   f"{at.rollback_name}",))


def _gated(evidence: Evidence) -> Decision | None:
    """The rung took effect; a failing gate stops, a gate short of data waits
    (docs/gates.md): None when every gate passes, or none runs."""
    report, at = evidence.report, evidence.at
    if report.gates_verdict is Verdict.STOP:
        return Decision(Outcome.STOP, (f"verify step {report.step}: ready, but a gate failed; "
                                       f"roll back to {at.rollback_name}",
                                       *reasons(report.gates, GateOutcome.FAIL)))
    if report.gates_verdict is Verdict.WAIT:
        return Decision(Outcome.WAIT, (f"verify step {report.step}: ready, its gates not "
                                       "decided yet", *reasons(report.gates, GateOutcome.WAIT)))
    return None


def _ready(evidence: Evidence) -> Decision:
    at, step = evidence.at, evidence.report.step
    if evidence.young:
        return Decision(Outcome.WAIT, (
            f"verify step {step}: ready, but not every TensorFusion pod has been ready for "
            f"{shown(evidence.soak)} (--min-soak)", *evidence.young))
    soaked = f"every TensorFusion pod ready for at least {shown(evidence.soak)}"
    if evidence.youngest is not None:
        soaked += f" (the most recent for {shown(evidence.youngest)})"
    if evidence.report.gates:
        soaked += f"; {tally(evidence.report.gates)}"
    if at.last:
        done = ("every replica is taken over" if at.step <= WHOLE_CARDS else
                "every replica runs on its share" + (" under the autoscaler"
                                                     if at.name == "autoscale" else ""))
        return Decision(Outcome.DONE, (f"verify step {step}: ready, {soaked}",
                                       f"the migration is done: {done}"))
    return Decision(Outcome.ADVANCE, (f"verify step {step}: ready, {soaked}",))


def _previous_ready(evidence: Evidence) -> tuple[str, ...]:
    previous = evidence.previous
    if previous is None or previous.verdict is not Verdict.READY:
        return ()
    return (f"the cluster still shows the rung before (verify step {previous.step}: ready): "
            "the sync has not happened yet",)


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")
