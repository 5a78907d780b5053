"""One object defined twice in the input: bad input, refused before anything is simulated.

Kubernetes keeps one object per kind, namespace and name, so two documents that
name the same GPU workload leave the cluster running whichever was applied
last; the plan cannot say which, and refuses (exit 2) naming both places.
Objects named by ``generateName`` are never the same: each is its own run.
"""

from __future__ import annotations

from collections.abc import Callable

from tfpolicy.edits import Path
from tfpolicy.errors import TfpolicyError
from tfpolicy.plan.units import Document, Unit
from tfpolicy.records import Record


class Place(Record):
    """Where an object is written: the file, its document (counted from 0), the object's
    ``metadata`` in that document."""

    file: str
    index: int
    path: Path

    def __str__(self) -> str:
        return f"{self.file} (document {self.index + 1})"


Where = Callable[[Place], str]  # how a place is shown: ``file:line`` once the file is read


class DefinedTwiceError(TfpolicyError):
    """The command shows both places at their lines (``shown``); unlocated, by document."""

    def __init__(self, owner: str, first: Place, second: Place) -> None:
        super().__init__(_message(owner, str(first), f"at {second}"))
        self.owner, self.first, self.second = owner, first, second

    def shown(self, where: Where) -> DefinedTwiceError:
        """The same error as the command reports it at the second place: the first as
        ``where`` shows it (``file:line``)."""
        self.message = _message(self.owner, where(self.first), "here")
        self.args = (self.message,)
        return self


def _message(owner: str, first: str, second: str) -> str:
    return (f"{owner} is defined twice, at {first} and {second}: the cluster keeps one "
            "object per kind, namespace and name, so the plan cannot say which runs; "
            "remove one, or give them different names")


def refuse_twice(docs: list[Document], units: list[Unit]) -> None:
    """Raise :class:`DefinedTwiceError` for the first object whose kind, namespace and name an
    earlier object of the input already has."""
    first: dict[tuple[str, str, str], Place] = {}
    for unit in units:
        if not unit.name:
            continue
        doc = docs[unit.doc]
        place = Place(doc.file, doc.index, (*unit.base, "metadata", "name"))
        seen = first.setdefault((unit.kind, unit.namespace, unit.name), place)
        if (seen.file, seen.index, seen.path) != (place.file, place.index, place.path):
            raise DefinedTwiceError(f"{unit.kind}/{unit.namespace}/{unit.name}", seen, place)
