"""Rollout simulation: replace a workload's old pods by new ones as its controller would.

* Deployment / Argo Rollout `RollingUpdate`: maxSurge (rounded up) and
  maxUnavailable (rounded down), default 25 %/25 %; both 0 after scaling ⇒
  maxUnavailable 1 (the Deployment controller's fencepost rule). Each round
  creates new pods up to replicas + surge, then deletes old pods down to
  replicas − unavailable. New pods must be scheduled when created: the proof
  assumes the scheduler sees them before the old pods are gone, so the
  surge's peak must fit.
* `Recreate`: every old pod goes, then the new ones come.
* StatefulSet: one ordinal at a time from the highest: delete, then create.
* DaemonSet: like rolling, default maxUnavailable 1 and maxSurge 0, percentages
  rounded up; the per-node pinning of daemon pods is not simulated.
* Jobs (Job, CronJob, training and Ray CRDs, bare pods): no rollout; the next
  run replaces the old pods all at once.

Workloads of a step are rolled one after another in sorted order; concurrent
rollouts are not modelled. A step stops at the first pod that does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tfpolicy.scheduler.contract import Allocator, schedule
from tfpolicy.scheduler.diagnosis import Unschedulable
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


@dataclass(frozen=True, slots=True)
class Strategy:
    """How a controller replaces pods; surge/unavailable are ints or ``"25%"``."""

    type: StrategyType
    max_surge: int | str = "25%"
    max_unavailable: int | str = "25%"
    round_up_unavailable: bool = False


ROLLING_KINDS = frozenset({"Deployment", "Rollout"})


def default_strategy(kind: str) -> Strategy:
    """The controller default for a workload kind."""
    if kind in ROLLING_KINDS:
        return Strategy(StrategyType.ROLLING)
    if kind == "StatefulSet":
        return Strategy(StrategyType.ORDERED)
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


@dataclass(frozen=True, slots=True)
class Transition:
    """One workload moving from ``old_pods`` (running now) to ``new_pods``."""

    workload: str
    kind: str
    replicas: int
    old_pods: tuple[PodRequest, ...]
    new_pods: tuple[PodRequest, ...]
    strategy: Strategy | None = None


@dataclass(frozen=True, slots=True)
class Failure:
    """The first pod that did not fit, with the pods of its workload running then."""

    workload: str
    pod: PodRequest
    diagnosis: Unschedulable
    old_running: int
    new_running: int


@dataclass(frozen=True, slots=True)
class StepResult:
    fits: bool
    failure: Failure | None
    before: Usage
    after: Usage
    pools: tuple[PoolUsage, ...]
    oversubscribed: tuple[GpuLimits, ...]


class _Run:
    """A transition in progress: the old pods still running, the new ones placed."""

    def __init__(self, allocator: Allocator, transition: Transition) -> None:
        self.allocator, self.t = allocator, transition
        self.old = list(transition.old_pods)
        self.created = 0

    def delete_old(self, count: int) -> None:
        for pod in self.old[:count]:
            self.allocator.ledger.release(pod.key)  # a pod that never ran frees nothing
        del self.old[:count]

    def create(self, count: int) -> Failure | None:
        for pod in self.t.new_pods[self.created:self.created + count]:
            placed = schedule(self.allocator, pod)
            if isinstance(placed, Unschedulable):
                return Failure(self.t.workload, pod, placed, len(self.old), self.created)
            self.created += 1
        return None


def simulate_transition(allocator: Allocator, transition: Transition) -> Failure | None:
    """Roll one workload on the allocator's ledger; the first misfit, or None."""
    strategy = transition.strategy or default_strategy(transition.kind)
    run = _Run(allocator, transition)
    if strategy.type is StrategyType.ROLLING:
        return _rolling(run, strategy)
    if strategy.type is StrategyType.ORDERED:
        return _ordered(run)
    run.delete_old(len(run.old))
    return run.create(len(transition.new_pods))


def _rolling(run: _Run, strategy: Strategy) -> Failure | None:
    replicas, target = run.t.replicas, len(run.t.new_pods)
    surge = scaled(strategy.max_surge, replicas, True)
    unavailable = scaled(strategy.max_unavailable, replicas, strategy.round_up_unavailable)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    while run.created < target or run.old:
        room = min(target + surge - len(run.old) - run.created, target - run.created)
        failure = run.create(max(room, 0))
        if failure is not None:
            return failure
        run.delete_old(max(len(run.old) + run.created - (target - unavailable), 0))
    return None


def _ordered(run: _Run) -> Failure | None:
    """StatefulSet RollingUpdate: highest ordinal first, delete before create."""
    old, new = list(run.t.old_pods), run.t.new_pods
    for ordinal in reversed(range(max(len(old), len(new)))):
        if ordinal < len(old):
            run.allocator.ledger.release(old[ordinal].key)
            run.old.remove(old[ordinal])
        if ordinal < len(new):
            placed = schedule(run.allocator, new[ordinal])
            if isinstance(placed, Unschedulable):
                return Failure(run.t.workload, new[ordinal], placed, len(run.old), run.created)
            run.created += 1
    return None


def simulate_step(allocator: Allocator, transitions: list[Transition]) -> StepResult:
    """Roll every transition, sorted by workload, against one ledger."""
    ledger = allocator.ledger
    before = usage(ledger)
    failure = None
    for transition in sorted(transitions, key=lambda t: (t.workload, t.kind)):
        failure = simulate_transition(allocator, transition)
        if failure is not None:
            break
    return StepResult(failure is None, failure, before, usage(ledger), pool_usage(ledger),
                      oversubscribed_gpus(ledger))


def place_pods(allocator: Allocator, pods: list[PodRequest]) -> tuple[Failure, ...]:
    """Place pods that are already running (the starting state), in order; every misfit."""
    misfits = []
    for pod in pods:
        placed = schedule(allocator, pod)
        if isinstance(placed, Unschedulable):
            misfits.append(Failure(pod.workload, pod, placed, 0, 0))
    return tuple(misfits)
