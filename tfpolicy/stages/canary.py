"""A canary rung on kinds whose pods TensorFusion cannot cap: whole workloads, in a fixed order.

The webhook enforces ``enabled-replicas`` only for pods that carry the
``pod-template-hash`` label (NexusGPU/tensor-fusion at 3e0a4901,
``internal/webhook/v1/pod_counter.go:30-36``: without it the counter key is a
hash of the pod's JSON, read before and written after the mutation, so it
never matches; :mod:`tfpolicy.workloads.revisions` says which kinds
carry it). On the other kinds (PyTorchJob, LeaderWorkerSet, RayService,
StatefulSet, Job, Argo Rollout, …) a cap would be written and never bite.

So a rung of ``N %`` there moves ``N %`` of those workloads whole, rounded as
the cap is for a Deployment's replicas (up, at least one; an integer rung ``k``
moves ``k`` workloads), and leaves the others exactly as the user wrote them.
Which ones: the first in the order (pinned first, then namespace, kind, name),
per owning policy, among the workloads of the input the command was given.
The chosen set of a rung is a prefix of that order and grows with the rung,
so a workload moved at 25 % is moved at 50 % too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from tfpolicy.records import Record, field

PIN = "tfpolicy.dev/canary"  # on the workload's own labels
PIN_FIRST = "first"

Key = tuple[str, str, str]  # namespace, kind, name


def rung_count(wanted: int | str, total: int) -> int | None:
    """How many of ``total`` replicas (or workloads) a rung takes; ``None``: all of them."""
    if isinstance(wanted, int):
        return wanted
    percent = int(str(wanted).rstrip("%"))
    if percent >= 100:
        return None
    return max(1, math.ceil(total * percent / 100))


def pinned(labels: Mapping[str, Any]) -> bool:
    return labels.get(PIN) == PIN_FIRST


class Member(Record):
    """A workload a canary rung selects whole: its policy, identity and pin."""

    policy: str
    key: Key
    pinned: bool = False


class Cohort(Record):
    """Per policy, its by-workload canary members in order; computed over one input."""

    groups: tuple[tuple[str, tuple[Key, ...]], ...] = ()
    # Per (policy, key), its position and its group's size: made once.
    _places: dict[tuple[str, Key], tuple[int, int]] = field(
        init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        places = {(policy, key): (at, len(keys)) for policy, keys in self.groups
                  for at, key in enumerate(keys)}
        object.__setattr__(self, "_places", places)

    @classmethod
    def of(cls, members: Iterable[Member]) -> Cohort:
        pins: dict[tuple[str, Key], bool] = {}
        for member in members:
            where = (member.policy, member.key)
            pins[where] = pins.get(where, False) or member.pinned
        groups: dict[str, list[tuple[bool, Key]]] = {}
        for (policy, key), pin in pins.items():
            groups.setdefault(policy, []).append((not pin, key))
        return cls(tuple((policy, tuple(key for _, key in sorted(items)))
                         for policy, items in sorted(groups.items())))

    def place(self, policy: str, key: Key) -> tuple[int, int]:
        """The workload's position (0-based) and its group's size; alone if not a member."""
        return self._places.get((policy, key), (0, 1))

    def group(self, policy: str) -> tuple[Key, ...]:
        return next((keys for name, keys in self.groups if name == policy), ())


class Decision(Record):
    chosen: bool
    position: int  # 1-based
    taken: int  # how many of the group this rung takes
    total: int


def pick_canary(cohort: Cohort, policy: str, key: Key, wanted: int | str) -> Decision:
    position, total = cohort.place(policy, key)
    count = rung_count(wanted, total)
    taken = total if count is None else min(count, total)
    return Decision(position < taken, position + 1, taken, total)


def chosen(cohort: Cohort, policy: str, wanted: int | str) -> tuple[Key, ...]:
    """The workloads of ``policy`` a rung moves whole, in order."""
    return tuple(k for k in cohort.group(policy) if pick_canary(cohort, policy, k, wanted).chosen)


def describe(decision: Decision, kind: str) -> str:
    """The finding's message: moved whole, or waiting, and on what input the choice rests."""
    place = (f"#{decision.position} of the {decision.total} workloads of this input whose "
             f"pods TensorFusion cannot cap, the rung takes {decision.taken}")
    why = f"enabled-replicas is not enforced on a {kind}"
    if decision.chosen:
        return (f"migrated whole at this rung ({place}): {why}; the order: label "
                f"{PIN}={PIN_FIRST}, then namespace, kind, name")
    return (f"left as it is, waits for a later rung ({place}): {why}; "
            f"label {PIN}={PIN_FIRST} on the workload moves it first")
