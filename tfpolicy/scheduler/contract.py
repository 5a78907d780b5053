"""The allocator contract: choose a node and GPUs for a pod, reading the ledger."""

from __future__ import annotations

from typing import Protocol

from tfpolicy.records import Record
from tfpolicy.scheduler.diagnosis import Unschedulable
from tfpolicy.scheduler.ledger import Allocation, Ledger
from tfpolicy.scheduler.model import PodRequest


class Choice(Record):
    """Where a pod goes: one node, its GPUs in the order the pod gets them
    (NexusGPU/tensor-fusion internal/scheduler/gpuresources/gpuresources.go:638)."""

    node: str
    gpus: tuple[str, ...]


class Allocator(Protocol):
    """Chooses without changing anything; the caller commits with `schedule`."""

    @property
    def ledger(self) -> Ledger: ...

    def choose(self, pod: PodRequest) -> Choice | Unschedulable: ...


def schedule(allocator: Allocator, pod: PodRequest) -> Allocation | Unschedulable:
    """Choose for ``pod`` and commit it to the allocator's ledger (Reserve + PreBind)."""
    choice = allocator.choose(pod)
    if isinstance(choice, Unschedulable):
        return choice
    return allocator.ledger.reserve(pod, choice.gpus)


def try_schedule(allocator: Allocator, pod: PodRequest) -> Allocation | None:
    """`schedule` for callers that only need to know whether it fits: an allocator with a
    ``find`` (no diagnosis) is asked that way, which is much cheaper when it does not."""
    find = getattr(allocator, "find", None)
    if find is None:
        placed = schedule(allocator, pod)
        return None if isinstance(placed, Unschedulable) else placed
    choice = find(pod)
    return None if choice is None else allocator.ledger.reserve(pod, choice.gpus)
