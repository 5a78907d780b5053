"""A stream read twice without holding it: its pieces kept in a temporary file as the first
pass reads them, then read back, in order, for the rewrite.

``apply`` reads its files and stdin once, in pieces, so that its memory stays flat however
long the stream (docs/speed.md); the first pass (:mod:`tfpolicy.rewrite.firstpass`) must
see every piece before the first is rewritten. Only this process reads back what it wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Spool(Generic[T]):
    def __init__(self, items: Iterable[T]) -> None:
        import tempfile  # here: a small check or apply spools nothing, and imports it not

        self._items = iter(items)
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed once read back)

    def first(self) -> Iterator[T]:
        """The items, each kept as it passes."""
        import pickle  # here, as tempfile above

        for item in self._items:
            pickle.dump(item, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            yield item

    def again(self) -> Iterator[T]:
        """All the items once more, in order (those the first reading left too)."""
        import pickle

        for _ in self.first():
            pass
        self._file.seek(0)
        try:
            while True:
                try:
                    yield pickle.load(self._file)  # written above, by this process
                except EOFError:
                    return
        finally:
            self._file.close()
