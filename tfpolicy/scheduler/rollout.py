"""Rollout simulation: replace workloads' old pods by new ones as their controllers would.

The controllers (`controllers.py`) sync in turn, then the scheduler tries
every pending pod in creation order (kube-scheduler's queue sorts by
priority, then creation time; these pods share a priority), and this
repeats until nothing moves. A step fits when every controller is done;
otherwise the pods still pending are the deadlock, each with the
FitError-style diagnosis of its last attempt.

By default all transitions of a step run at once, as a GitOps sync applies
every changed manifest together: the harder case for capacity, since surge
pods of one workload may take the GPUs another is freeing. ``concurrent=
False`` rolls them one after the other in sorted order instead. A DaemonSet
rolls node by node: each new pod is bound to the node its old pod ran on.
"""

from __future__ import annotations

from enum import Enum

from tfpolicy.records import Record
from tfpolicy.scheduler.contract import Allocator, schedule, try_schedule
from tfpolicy.scheduler.controllers import Controller, Daemon, Ordered, Progress, Rolling
from tfpolicy.scheduler.diagnosis import Unschedulable
from tfpolicy.scheduler.ledger import Ledger
from tfpolicy.scheduler.model import PodRequest
from tfpolicy.scheduler.report import (
    GpuLimits,
    PoolUsage,
    Usage,
    oversubscribed_gpus,
    pool_usage,
    usage,
)


class StrategyType(Enum):
    ROLLING = "RollingUpdate"
    RECREATE = "Recreate"
    ORDERED = "OrderedReady"
    ALL_AT_ONCE = "AllAtOnce"
    ON_DELETE = "OnDelete"


class Strategy(Record):
    """How a controller replaces pods; surge/unavailable are ints or ``"25%"``."""

    type: StrategyType
    max_surge: int | str = "25%"
    max_unavailable: int | str = "25%"
    round_up_unavailable: bool = False
    partition: int = 0  # StatefulSet: ordinals below it keep the old template
    canary_weights: tuple[int, ...] = ()  # Argo Rollout canary `setWeight` steps, in order
    paused_at: int | None = None  # canary: the weight at its first `pause` step, if any


ROLLING_KINDS = frozenset({"Deployment", "Rollout"})


def default_strategy(kind: str) -> Strategy:
    """The controller default for a workload kind."""
    if kind in ROLLING_KINDS:
        return Strategy(StrategyType.ROLLING)
    if kind == "StatefulSet":
        return Strategy(StrategyType.ORDERED, 0, 1)
    if kind == "DaemonSet":
        return Strategy(StrategyType.ROLLING, 0, 1, round_up_unavailable=True)
    return Strategy(StrategyType.ALL_AT_ONCE)


def scaled(value: int | str, total: int, round_up: bool) -> int:
    """An int-or-percent of ``total`` (Kubernetes `GetScaledValueFromIntOrPercent`)."""
    if isinstance(value, int):
        return value
    if not value.endswith("%") or not value[:-1].isdigit():
        raise ValueError(f"not an int or a percentage: {value!r}")
    part = int(value[:-1]) * total
    return -(-part // 100) if round_up else part // 100


class Transition(Record):
    """One workload moving from ``old_pods`` (running now) to ``new_pods``."""

    workload: str
    kind: str
    replicas: int
    old_pods: tuple[PodRequest, ...]
    new_pods: tuple[PodRequest, ...]
    strategy: Strategy | None = None


class Failure(Record):
    """The first pod that did not fit, with the pods of its workload running then."""

    workload: str
    pod: PodRequest
    diagnosis: Unschedulable
    old_running: int
    new_running: int


class StepResult(Record):
    fits: bool
    failure: Failure | None
    before: Usage
    after: Usage
    pools: tuple[PoolUsage, ...]
    oversubscribed: tuple[GpuLimits, ...]
    waiting: tuple[Failure, ...] = ()  # every workload left with pending pods, sorted


def canary_target(weight: int, total: int) -> int:
    """New pods at a canary weight: ceil(weight × replicas / 100)."""
    return -(-weight * total // 100)


def paused_target(strategy: Strategy | None, total: int) -> int | None:
    """New pods a canary stops at (its first `pause`), None when it runs to the end."""
    if strategy is None or strategy.paused_at is None:
        return None
    target = canary_target(strategy.paused_at, total)
    return target if target < total else None


def controller_for(transition: Transition, ledger: Ledger | None = None) -> Controller:
    """The controller that rolls ``transition``, from its strategy or its kind's default;
    ``ledger``: where the old pods run (a DaemonSet binds each new pod to that node)."""
    strategy = transition.strategy or default_strategy(transition.kind)
    progress = Progress(transition.workload, list(transition.old_pods), transition.new_pods)
    total = len(transition.new_pods)
    if strategy.type is StrategyType.ROLLING:
        surge = scaled(strategy.max_surge, transition.replicas, True)
        unavailable = scaled(strategy.max_unavailable, transition.replicas,
                             strategy.round_up_unavailable)
        if transition.kind == "DaemonSet":
            return Daemon(progress, _nodes(transition, ledger), surge, unavailable)
        paused = paused_target(strategy, total)
        targets = tuple(canary_target(w, total) for w in strategy.canary_weights
                        if w < 100 and (paused is None or canary_target(w, total) < paused))
        return Rolling(progress, surge, unavailable,
                       (*targets, total if paused is None else paused))
    if strategy.type is StrategyType.ORDERED:
        at_once = scaled(strategy.max_unavailable, transition.replicas, False)
        return Ordered(progress, strategy.partition, at_once)
    if strategy.type is StrategyType.ON_DELETE:
        return Ordered(progress, max(total, len(transition.old_pods)), 1)
    return Controller(progress)


def _nodes(transition: Transition, ledger: Ledger | None) -> tuple[str | None, ...]:
    """Per old pod, the node it runs on (None: not placed, or no ledger to ask)."""
    found = [ledger.allocation(p.key) if ledger is not None else None
             for p in transition.old_pods]
    return tuple(a.node if a is not None else None for a in found)


class _Loop:
    """Controllers syncing in turn, then the scheduler over the pending pods."""

    def __init__(self, allocator: Allocator, controllers: list[Controller]) -> None:
        self.allocator, self.controllers = allocator, controllers
        self.queue: list[tuple[Controller, PodRequest]] = []

    def run(self) -> None:
        moved = True
        while moved:
            moved = False
            for controller in self.controllers:
                if controller.done:
                    continue
                before = len(controller.p.old)
                made = controller.reconcile(self.allocator.ledger)
                self.queue.extend((controller, pod) for pod in made)
                moved |= bool(made) or len(controller.p.old) != before
            moved |= self._schedule()

    def _schedule(self) -> bool:
        """One pass over the queue; a pod shaped like one that just failed is not retried."""
        placed, failed, left = False, set[tuple[str, object, str | None]](), []
        for controller, pod in self.queue:
            shape = (pod.workload, pod.kind, pod.node)
            if shape in failed or try_schedule(self.allocator, pod) is None:
                failed.add(shape)
                left.append((controller, pod))
                continue
            controller.p.pending.remove(pod)
            controller.p.ready += 1
            placed = True
        self.queue = left
        return placed

    def waiting(self) -> tuple[Failure, ...]:
        """The deadlock: per stuck workload, its first pending pod, diagnosed as things stand."""
        stuck = [c.p for c in self.controllers if not c.done]
        # A controller can only stop short of done while some pod of its own waits.
        assert all(p.pending for p in stuck), "a rollout stalled with no pod pending"
        return tuple(sorted((Failure(p.workload, p.pending[0], self._why(p.pending[0]),
                                     len(p.old), p.ready) for p in stuck),
                            key=lambda f: f.workload))

    def _why(self, pod: PodRequest) -> Unschedulable:
        found = self.allocator.choose(pod)
        assert isinstance(found, Unschedulable), "a pending pod fits: the loop stopped early"
        return found


def simulate_transition(allocator: Allocator, transition: Transition) -> Failure | None:
    """Roll one workload on the allocator's ledger; the first pod left waiting, or None."""
    loop = _Loop(allocator, [controller_for(transition, allocator.ledger)])
    loop.run()
    waiting = loop.waiting()
    return waiting[0] if waiting else None


def simulate_step(allocator: Allocator, transitions: list[Transition],
                  concurrent: bool = True) -> StepResult:
    """Roll every transition against one ledger, all at once or one after the other."""
    ledger = allocator.ledger
    before = usage(ledger)
    ordered = sorted(transitions, key=lambda t: (t.workload, t.kind))
    waiting: tuple[Failure, ...] = ()
    for batch in ([ordered] if concurrent else [[t] for t in ordered]):
        loop = _Loop(allocator, [controller_for(t, ledger) for t in batch])
        loop.run()
        waiting = loop.waiting()
        if waiting:
            break
    return StepResult(not waiting, waiting[0] if waiting else None, before, usage(ledger),
                      pool_usage(ledger), oversubscribed_gpus(ledger), waiting)


def place_pods(allocator: Allocator, pods: list[PodRequest]) -> tuple[Failure, ...]:
    """Place pods that are already running (the starting state), in order; every misfit."""
    misfits = []
    for pod in pods:
        placed = schedule(allocator, pod)
        if isinstance(placed, Unschedulable):
            misfits.append(Failure(pod.workload, pod, placed, 0, 0))
    return tuple(misfits)
