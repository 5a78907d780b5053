"""Work spread over the CPUs this process may use, results taken in input order.

Documents and files are independent of each other once the policies are
loaded, so ``apply``, ``fix`` and ``check`` hand batches of them to worker
processes forked from the running one: each worker starts with the loaded
policies and imported modules already in memory, and only the batch and its
outcome cross a pipe. Results are consumed in the order the batches were
given, and a batch's error is raised when its turn comes, so the output, the
findings and the first error are the ones one process would give. Workers
never print; what a batch has to say travels back in its result.

One process does it all where forking is not possible (not Linux), where one
CPU is available, when ``--jobs 1`` is asked for, and when the input fits in
one batch, so a small run pays nothing for it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_AHEAD = 2  # batches in flight per worker: one running, one waiting in its pipe

# The function a worker applies to each batch. Set before the pool forks, so a
# worker inherits it with everything it closes over (the policies) and nothing
# is pickled but the batch and its result.
_work: Callable[[Any], Any] | None = None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, as a container limits it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def workers(jobs: int) -> int:
    """How many processes ``jobs`` asks for: 0 means one per usable CPU."""
    wanted = usable_cpus() if jobs <= 0 else jobs
    return wanted if sys.platform == "linux" else 1


def ordered(work: Callable[[T], R], batches: Iterable[T], jobs: int,
            prepare: Callable[[], None] | None = None) -> Iterator[R]:
    """``work`` over ``batches``, in order; in ``workers(jobs)`` processes when that is
    more than one and there are at least two batches. ``prepare`` runs first in each
    worker process."""
    count = workers(jobs)
    if count <= 1:
        yield from map(work, batches)
        return
    pending = iter(batches)
    first = next(pending, _END)
    if first is _END:
        return
    try:
        second = next(pending, _END)
    except Exception:
        yield work(first)  # its own error, if any, comes first
        raise
    if second is _END:
        yield work(first)
        return
    yield from _forked(work, _chain(first, second, pending), count, prepare)


def _forked(work: Callable[[T], R], batches: Iterator[T], count: int,
            prepare: Callable[[], None] | None) -> Iterator[R]:
    global _work
    _work = work
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=count, mp_context=context, initializer=_worker,
                               initargs=(os.getpid(), prepare))
    flight: deque[Future[R]] = deque()
    try:
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except Exception:
                # Reading the input failed further on than every batch in flight: their
                # results (or errors) come first, as they would in one process.
                while flight:
                    yield flight.popleft().result()
                raise
            flight.append(pool.submit(_run, batch))
            if len(flight) >= count * _AHEAD:
                yield flight.popleft().result()
        while flight:
            yield flight.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _work = None


def _worker(parent: int, prepare: Callable[[], None] | None) -> None:
    """Ctrl-C is the parent's to handle: it stops the run and the pool with it. A parent
    killed outright (``kill -9``) cannot stop its pool, and a worker would wait for its
    next batch for ever: the kernel is asked to kill the worker when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    if prepare is not None:
        prepare()


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # it died before the request was made
        os._exit(1)


def _run(batch: Any) -> Any:
    assert _work is not None, "a worker runs only in a pool forked by _forked"
    return _work(batch)


_END: Any = object()


def _chain(first: T, second: T, rest: Iterator[T]) -> Iterator[T]:
    yield first
    yield second
    yield from rest
