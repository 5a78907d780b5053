"""One setuptools build of this checkout at a time, across the test run's workers.

The package test's sdist and wheel and the images' wheel all build this tree in place:
two at once write its egg-info and build/ folder together, and the image context
under build/ is one folder. pytest-xdist's ``xdist_group`` cannot keep them on one
worker with pytest 9 (the group is written to a node id pytest no longer reads), so a
file lock orders them whichever worker runs them.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"


@contextmanager
def one_build_at_a_time() -> Iterator[None]:
    BUILD.mkdir(exist_ok=True)
    with open(BUILD / ".tree-build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def once_this_run(what: str, build: Callable[[], None]) -> None:
    """``build()``, unless a worker of this test run already did it, holding the lock.

    Every xdist worker of one run shares ``PYTEST_XDIST_TESTRUNUID`` (a run without
    workers stands for itself by its process id); a stamp under build/ says that run
    built ``what``, and the stamps of earlier runs are taken away before a build.
    """
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    stamp = BUILD / f".{what}-built-{run}"
    with one_build_at_a_time():
        if stamp.exists():
            return
        for earlier in BUILD.glob(f".{what}-built-*"):
            earlier.unlink(missing_ok=True)
        build()
        stamp.touch()
