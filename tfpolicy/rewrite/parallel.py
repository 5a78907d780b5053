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

import gc
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_AHEAD = 2  # batches in flight per worker: one running, one waiting in its pipe

# The function a worker applies to each batch. Set before the pool forks, so a
# worker inherits it with everything it closes over (the policies) and nothing
# is pickled but the batch and its result.
_work: Callable[[Any], Any] | None = None


# At most this many workers unless ``-j`` asks for more: the parent reads, splits and
# writes the stream alone (docs/speed.md), so more gain little, and
# each one forked costs its memory on a 64-CPU runner all the same.
MOST_WORKERS = 8


def usable_cpus() -> int:
    """The CPUs this process may use: its affinity mask (a container's CPU set), then
    its cgroup's CPU quota (a container's ``limits.cpu``, rounded up), where one is set."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
    quota = cgroup_cpus()
    return max(1, min(count, quota)) if quota else count


def runs(items: list[T], jobs: int, most: int = 64) -> Iterator[list[T]]:
    """``items`` (files, mostly) in runs for ``ordered``: a few per worker at the least,
    so that a handful stays in one process, and at most ``most``, so that the workers
    stay busy to the end.

    Each run is let go of as it is taken, so the names of files done are not held
    to the end of the run, when what ``fix`` holds of the changed ones is largest
    (docs/speed.md, "Figures behind the code").
    """
    size = most // 4
    if len(items) // 4 > size:  # only then may the workers' count make the runs longer
        size = min(most, max(size, len(items) // (4 * workers(jobs))))
    return _let_go(deque(items[at:at + size] for at in range(0, len(items), size)))


def _let_go(pending: deque[list[T]]) -> Iterator[list[T]]:
    """Made apart from ``runs``, so that the generator holds the runs, not ``items``."""
    while pending:
        yield pending.popleft()


def workers(jobs: int) -> int:
    """How many processes ``jobs`` asks for: 0 means one per usable CPU, up to
    ``MOST_WORKERS``."""
    wanted = min(usable_cpus(), MOST_WORKERS) if jobs <= 0 else jobs
    return wanted if sys.platform == "linux" else 1


def cgroup_cpus(proc: Path = Path("/proc/self/cgroup"),
                root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The CPU quota of this process's cgroup and its ancestors, in whole CPUs rounded
    up (the smallest one set), or None where none is set or none can be read.

    cgroup v2 (``0::PATH``, ``cpu.max``: "QUOTA PERIOD" or "max PERIOD") and v1
    (the ``cpu`` controller's ``cpu.cfs_quota_us``, -1 for none, over
    ``cpu.cfs_period_us``). Inside a container the cgroup's own files sit at the
    mount's root, whatever path ``/proc`` names, so that root is read too.
    """
    try:
        lines = proc.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    limits = []
    for line in lines:
        hierarchy = line.split(":", 2)
        if len(hierarchy) != 3:
            continue
        _, controllers, path = hierarchy
        if controllers == "":  # v2: the one unified hierarchy
            limits += [_v2_limit(folder) for folder in _upwards(root, path)]
        elif "cpu" in controllers.split(","):
            mount = root / controllers if (root / controllers).is_dir() else root / "cpu"
            limits += [_v1_limit(folder) for folder in _upwards(mount, path)]
    found = [limit for limit in limits if limit is not None]
    return min(found) if found else None


def _upwards(mount: Path, path: str) -> list[Path]:
    """The cgroup's folder and each ancestor's, up to the mount's root (no duplicates)."""
    folder = mount / path.strip("/")
    chain = [folder, *folder.parents]
    return [f for f in chain if f == mount or f.is_relative_to(mount)]


def _v2_limit(folder: Path) -> int | None:
    text = _read(folder / "cpu.max")
    parts = text.split() if text else []
    if len(parts) != 2 or parts[0] == "max":
        return None
    return _whole_cpus(parts[0], parts[1])


def _v1_limit(folder: Path) -> int | None:
    quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
    if quota is None or period is None or quota.strip().startswith("-"):
        return None
    return _whole_cpus(quota, period)


def _whole_cpus(quota: str, period: str) -> int | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return -(-q // p) if q > 0 and p > 0 else None  # 1.5 CPUs' worth runs two


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None


def ordered(work: Callable[[T], R], batches: Iterable[T], jobs: int, *,
            shared: Callable[[], None] | None = None,
            in_worker: Callable[[], None] | None = None) -> Iterator[R]:
    """``work`` over ``batches``, in order; in ``workers(jobs)`` processes when that is
    more than one and there are at least two batches.

    When workers are forked, ``shared`` runs first in this process (imports every
    worker would otherwise make, each on its own and into its own memory), and
    ``in_worker`` first in each worker.
    """
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
        yield work(first)  # one batch: the CPUs are not even counted
        return
    count = workers(jobs)
    if count <= 1:
        yield from map(work, _chain(first, second, pending))
        return
    if shared is not None:
        shared()
    yield from _forked(work, _chain(first, second, pending), count, in_worker)


def _forked(work: Callable[[T], R], batches: Iterator[T], count: int,
            in_worker: Callable[[], None] | None) -> Iterator[R]:
    import multiprocessing  # here, with the pool: a small run has none
    from concurrent.futures import Future, ProcessPoolExecutor

    global _work
    _work = work
    context = multiprocessing.get_context("fork")
    # Objects made so far are left out of garbage collection while the workers live: a
    # collection in this process or a worker writes to every object it scans, which
    # copies the page it is on, shared with the workers until then (Python's gc.freeze).
    gc.freeze()
    pool = ProcessPoolExecutor(max_workers=count, mp_context=context, initializer=_worker,
                               initargs=(os.getpid(), in_worker))
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
        gc.unfreeze()
        _work = None


def _worker(parent: int, in_worker: Callable[[], None] | None) -> None:
    """Ctrl-C is the parent's to handle: it stops the run and the pool with it. A parent
    killed outright (``kill -9``) cannot stop its pool, and a worker would wait for its
    next batch for ever: the kernel is asked to kill the worker when the parent dies."""
    import signal  # here, as in _die_with_parent: only a worker sets them

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    if in_worker is not None:
        in_worker()


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    import ctypes
    import signal

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
