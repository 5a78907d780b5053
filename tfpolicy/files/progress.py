"""Progress on stderr for long runs (``apply``/``check``/``fix`` over many files).

Only when stderr is a terminal, the run has many files and ``--quiet`` was not
given: a log, a pipe or a CI step sees nothing, so output stays the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from tfpolicy.rewrite.pipeline import StreamOutcome

MANY = 200  # below this a run is quick: a counter would only flicker


class Progress:
    """A counter on ``stream`` (None: silent). A plain class: a dataclass would import
    ``inspect`` into every small check, which the command line no longer loads."""

    __slots__ = ("_done", "stream", "total")

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total, self.stream, self._done = total, stream, 0

    def step(self, name: str) -> None:
        self._done += 1
        if self.stream is not None:
            self.stream.write(f"\r\x1b[K[{self._done}/{self.total}] {name[-60:]}")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self._done:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def progress(total: int, quiet: bool) -> Progress:
    """A counter of ``total`` files, shown only to a person watching a long run."""
    shown = total >= MANY and not quiet and sys.stderr.isatty()
    return Progress(total, sys.stderr if shown else None)


def counted(outcomes: Iterable[StreamOutcome], total: int, quiet: bool
            ) -> Iterator[StreamOutcome]:
    """The outcomes of ``total`` files as they come, each file counted at its first one on
    the progress line (``progress``), the line cleared once all came."""
    shown = progress(total, quiet)
    for done in outcomes:
        if done.opens:
            shown.step(done.file)
        yield done
    shown.close()
