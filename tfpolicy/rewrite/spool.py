"""A stream read twice without holding it: its pieces kept as the first pass reads them,
then given again, in order, for the rewrite.

``apply`` reads its files and stdin once, in pieces, so that its memory stays flat however
long the stream (docs/speed.md); the first pass (:mod:`tfpolicy.rewrite.firstpass`) must
see every piece before the first is rewritten. Pieces are held in memory while they total
at most ``IN_MEMORY`` bytes, a chart's render or a commit's few files, which then touch no
disk and import neither ``tempfile`` nor ``pickle``; past that bound every piece goes to a
temporary file. Only this process reads back what it wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, Generic, TypeVar

T = TypeVar("T")

IN_MEMORY = 1 << 20  # bytes held before a spool moves to a temporary file


class Spool(Generic[T]):
    def __init__(self, items: Iterable[T], size: Callable[[T], int]) -> None:
        self._items = iter(items)
        self._size = size
        self._held: list[T] = []
        self._held_bytes = 0
        self._file: IO[bytes] | None = None

    def first(self) -> Iterator[T]:
        """The items, each kept as it passes."""
        for item in self._items:
            self._keep(item)
            yield item

    def again(self) -> Iterator[T]:
        """All the items once more, in order (those the first reading left too)."""
        for _ in self.first():
            pass
        if self._file is None:
            held, self._held = self._held, []
            yield from held
            return
        yield from _read_back(self._file)

    def _keep(self, item: T) -> None:
        if self._file is not None:
            _dump(item, self._file)
            return
        self._held.append(item)
        self._held_bytes += self._size(item)
        if self._held_bytes > IN_MEMORY:
            import tempfile  # here: a small run spools in memory, and imports it not

            self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed once read back)
            held, self._held = self._held, []
            for kept in held:
                _dump(kept, self._file)


def _dump(item: object, file: IO[bytes]) -> None:
    import pickle  # here, as tempfile above

    pickle.dump(item, file, protocol=pickle.HIGHEST_PROTOCOL)


def _read_back(file: IO[bytes]) -> Iterator[T]:
    import pickle

    file.seek(0)
    try:
        while True:
            try:
                yield pickle.load(file)  # written by _dump, in this process
            except EOFError:
                return
    finally:
        file.close()
