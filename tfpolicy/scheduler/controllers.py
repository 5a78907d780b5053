"""Workload controllers as Kubernetes runs them, one reconcile at a time.

Each controller owns one `Transition`: the old pods still running, the new
pods it has created (placed or pending) and those placed. ``reconcile``
does what the real controller would do on its next sync given what is
placed now; the caller (`rollout.py`) then gives pending pods to the
scheduler, and loops until nothing moves. A pending pod is not available.

* Deployment `RollingUpdate` (`pkg/controller/deployment/rolling.go`,
  `reconcileNewReplicaSet` / `reconcileOldReplicaSets`): the new ReplicaSet
  grows while all pods ≤ replicas + maxSurge; the old one shrinks while
  available ≥ replicas − maxUnavailable, so a surge pod may wait for the
  GPU an old pod frees. maxSurge rounds up, maxUnavailable down, both 0 ⇒
  maxUnavailable 1 (`ResolveFenceposts`). An Argo Rollout canary runs the
  same loop towards each `setWeight` in turn (ceil(weight × replicas)); at
  a `pause` step it stops at the weight reached so far (``targets`` then ends
  below ``replicas``): old and new pods both keep running until someone
  promotes the rollout (`rollout/canary.go`, `pause`).
* `Recreate`, Jobs and CronJobs: every old pod goes (or its run ends), then
  the new ones are created.
* StatefulSet `RollingUpdate` (`stateful_set_control.go`): from the highest
  ordinal down to ``partition``, delete the old pod, create the new one, wait
  until it runs; ``maxUnavailable`` ordinals at once (1 by default).
  `OnDelete` replaces nothing (``partition`` = replicas).
* DaemonSet `RollingUpdate` (`pkg/controller/daemon/update.go`,
  `rollingUpdate`): node by node, each new pod bound to the node of the old
  pod it replaces. Without maxSurge, the old pod goes on up to maxUnavailable
  nodes at once and the new one is created there; with maxSurge, the new pod
  starts next to the old one on up to maxSurge nodes at once (so it needs
  room on that node) and the old one goes once the new one runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tfpolicy.records import replace
from tfpolicy.scheduler.ledger import Ledger
from tfpolicy.scheduler.model import PodRequest


@dataclass
class Progress:
    """A transition in progress; ``created`` new pods exist, ``ready`` of them placed."""

    workload: str
    old: list[PodRequest]
    new: tuple[PodRequest, ...]
    created: int = 0
    ready: int = 0
    pending: list[PodRequest] = field(default_factory=list)

    def delete_old(self, ledger: Ledger, pods: list[PodRequest]) -> None:
        for pod in pods:
            ledger.release(pod.key)  # a pod that never ran frees nothing
            self.old.remove(pod)

    def create(self, count: int) -> list[PodRequest]:
        made = list(self.new[self.created:self.created + max(count, 0)])
        self.created += len(made)
        self.pending.extend(made)
        return made


class Controller:
    """The base: replace everything at once (Recreate, Jobs)."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress

    def reconcile(self, ledger: Ledger) -> list[PodRequest]:
        """One sync; the pods it created (to queue for the scheduler)."""
        if self.p.old:
            self.p.delete_old(ledger, list(self.p.old))
        return self.p.create(len(self.p.new) - self.p.created)

    def changed(self, ledger: Ledger) -> bool:
        """Run one sync; whether it deleted or created anything."""
        before = (len(self.p.old), self.p.created)
        made = self.reconcile(ledger)
        return bool(made) or before != (len(self.p.old), self.p.created)

    @property
    def done(self) -> bool:
        return not self.p.old and self.p.ready == len(self.p.new)


class Rolling(Controller):
    """Deployment / Argo Rollout: towards each target count of new pods in turn."""

    def __init__(self, progress: Progress, surge: int, unavailable: int,
                 targets: tuple[int, ...]) -> None:
        super().__init__(progress)
        self.surge = surge
        self.unavailable = 1 if surge == 0 and unavailable == 0 else unavailable
        self.targets = list(targets)

    def reconcile(self, ledger: Ledger) -> list[PodRequest]:
        p, total = self.p, len(self.p.new)
        target = self.targets[0]
        while len(self.targets) > 1 and p.ready >= target and len(p.old) <= total - target:
            self.targets.pop(0)
            target = self.targets[0]
        made = p.create(min(total + self.surge - len(p.old) - p.created, target - p.created))
        floor = max(total - target, 0)  # old pods the current canary weight keeps
        down = min(len(p.old) - floor, len(p.old) + p.ready - (total - self.unavailable))
        if down > 0:
            p.delete_old(ledger, p.old[:down])
        return made

    @property
    def done(self) -> bool:
        """At the last target: every pod it asks for runs and the old ones above it are gone
        (all of them, unless a canary pause holds the rollout short of 100 %)."""
        p, target = self.p, self.targets[0]
        return (len(self.targets) == 1 and p.ready == p.created == target
                and len(p.old) <= max(len(p.new) - target, 0))


class Daemon(Controller):
    """DaemonSet: per node, ``surge`` new pods beside their old ones or ``unavailable`` old
    pods replaced at a time; new pod ``i`` is bound to the node of old pod ``i``."""

    def __init__(self, progress: Progress, nodes: tuple[str | None, ...], surge: int,
                 unavailable: int) -> None:
        progress.new = tuple(replace(pod, node=node) if node is not None else pod
                             for pod, node in zip(progress.new, _padded(nodes, progress.new),
                                                  strict=True))
        super().__init__(progress)
        self.pairs = list(progress.old)  # old pod i, replaced by new pod i
        self.surge = surge
        self.unavailable = 1 if surge == 0 and unavailable == 0 else unavailable

    def reconcile(self, ledger: Ledger) -> list[PodRequest]:
        p = self.p
        if self.surge:
            running = [i for i in range(min(p.created, len(self.pairs)))
                       if ledger.allocation(p.new[i].key) is not None]
            self._delete(ledger, running)  # the new pod runs: the old one on its node goes
            made = p.create(self.surge - (p.created - p.ready))
        else:
            first = p.created
            made = p.create(self.unavailable - (p.created - p.ready))
            self._delete(ledger, range(first, first + len(made)))
        if p.created == len(p.new):
            self._delete(ledger, range(len(p.new), len(self.pairs)))  # nodes with no new pod
        return made

    def _delete(self, ledger: Ledger, ordinals: range | list[int]) -> None:
        gone = {id(pod) for pod in self.p.old}
        self.p.delete_old(ledger, [self.pairs[i] for i in ordinals
                                   if i < len(self.pairs) and id(self.pairs[i]) in gone])


def _padded(nodes: tuple[str | None, ...], pods: tuple[PodRequest, ...]) -> list[str | None]:
    return [nodes[i] if i < len(nodes) else None for i in range(len(pods))]


class Ordered(Controller):
    """StatefulSet: highest ordinal first, down to ``partition``, ``at_once`` at a time."""

    def __init__(self, progress: Progress, partition: int, at_once: int) -> None:
        super().__init__(progress)
        self.all_old = list(progress.old)
        self.next = max(len(progress.new), len(progress.old)) - 1
        self.partition, self.at_once = partition, max(at_once, 1)

    def reconcile(self, ledger: Ledger) -> list[PodRequest]:
        p, made = self.p, list[PodRequest]()
        while self.next >= self.partition and p.created - p.ready + len(made) < self.at_once:
            if self.next < len(self.all_old):
                p.delete_old(ledger, [self.all_old[self.next]])
            if self.next < len(p.new):
                made.append(p.new[self.next])
            self.next -= 1
        p.pending.extend(made)
        p.created += len(made)
        return made

    @property
    def done(self) -> bool:
        return self.next < self.partition and self.p.ready == self.p.created
