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
from collections.abc import Iterator
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


def built_this_run(what: str) -> Path:
    """A stamp that ``what`` was built in this test run: every xdist worker of one run
    shares ``PYTEST_XDIST_TESTRUNUID``; a run without workers gets its own process's."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    return BUILD / f".{what}-built-{run}"


def forget_other_runs(what: str) -> None:
    """Take away the stamps earlier runs left (call it holding the lock, before a build)."""
    for stamp in BUILD.glob(f".{what}-built-*"):
        stamp.unlink(missing_ok=True)
