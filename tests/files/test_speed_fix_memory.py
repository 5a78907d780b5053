"""What ``fix`` holds per file stays small: a hook or a wildcard hands it tens of
thousands of names, and its peak memory is a target of the bench (issue 9).

Each test measures with ``tracemalloc`` the peak of Python allocations while
one step runs over thousands of files, against a bound that the step's
per-file cost would break: a directory entry kept for every file of a folder,
a future per rename.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.files.test_repo_fix import _dead_pid
from tfpolicy.errors import TfpolicyError
from tfpolicy.files import output, swap
from tfpolicy.files.output import SUFFIX, clean_stale
from tfpolicy.files.sources import Seen

T = TypeVar("T")
MANY = 4000


def _peak(step: Callable[[], T]) -> tuple[T, int]:
    """``step``'s result and the peak of the Python memory it allocated, in bytes."""
    tracemalloc.start()
    try:
        result = step()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_cleaning_a_big_folder_keeps_only_its_temp_files_in_memory(tmp_path: Path) -> None:
    for index in range(MANY):
        (tmp_path / f"manifest-{index:05d}.yaml").touch()
    stale = tmp_path / f".a.yaml.{_dead_pid()}.k3x9_q2a{SUFFIX}"
    live = tmp_path / f".b.yaml.{os.getpid()}.p0q1r2s3{SUFFIX}"  # kept: named in ``keep``
    for path in (stale, live):
        path.write_text("half a file")
    _, peak = _peak(lambda: clean_stale([tmp_path], keep={str(live)}))
    assert not stale.exists() and live.exists()
    assert len(os.listdir(tmp_path)) == MANY + 1
    # A directory entry costs ~150 bytes: held for every file, 4,000 of them take 600 KB.
    assert peak < 100_000, peak


def _staged(folder: Path, count: int) -> list[output._Staged]:
    """``count`` targets with a temp file each, as ``Writes`` stages them."""
    items = []
    for index in range(count):
        real = folder / f"m{index:05d}.yaml"
        real.write_bytes(b"old\n")
        info = real.stat()
        seen = Seen.of(info, b"old\n")
        temp = folder / f".m{index:05d}.yaml.{os.getpid()}.abcdefgh{SUFFIX}"
        temp.write_bytes(b"new\n")
        items.append(output._Staged(real.name, str(real), seen, str(temp)))
    return items


def test_renaming_thousands_of_files_holds_no_record_per_rename(tmp_path: Path) -> None:
    items = _staged(tmp_path, MANY)
    renamed, peak = _peak(lambda: output._commit_all(items))
    assert renamed == [True] * MANY
    assert all((tmp_path / f"m{index:05d}.yaml").read_bytes() == b"new\n"
               for index in range(MANY))
    # A future per file costs ~1.9 KB: 4,000 of them took 7.6 MB. What is left is the
    # threads' own (~300 KB) and a few pointers per file.
    assert peak < 1_500_000, peak


def test_every_rename_is_tried_and_the_first_error_in_order_is_raised(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = _staged(tmp_path, 40)
    (tmp_path / "m00005.yaml").write_bytes(b"edited meanwhile\n")  # left alone, reported
    failing = {items[9].temp, items[30].temp}
    replace = os.replace

    def flaky(source: str, target: str) -> None:
        if source in failing:
            raise PermissionError(13, "Permission denied")
        replace(source, target)

    monkeypatch.setattr(os, "replace", flaky)
    monkeypatch.setattr(swap, "_renameat2", None)  # the fallback, which calls os.replace
    with pytest.raises(TfpolicyError) as raised:
        output._commit_all(items)
    assert raised.value.file == "m00009.yaml"  # not m00030.yaml: input order, not finish order
    new = {index for index in range(40)
           if (tmp_path / f"m{index:05d}.yaml").read_bytes() == b"new\n"}
    assert new == set(range(40)) - {5, 9, 30}
    assert (tmp_path / "m00005.yaml").read_bytes() == b"edited meanwhile\n"


_TRIMMED = """
import sys
from tfpolicy import cli

def resident():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmRSS:"))

before = resident()
cli._return_start_up_copies()
print(before - resident())
"""


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc_trim: Linux only")
def test_a_long_command_line_leaves_no_start_up_copies_resident() -> None:
    """CPython's start-up leaves freed copies of a long command line resident in the C
    heap; tfpolicy hands them back before its work. 20,000 names of 60 characters."""
    names = [f"manifests/team-{index:05d}/deployment-inference-server.yaml"
             for index in range(20_000)]
    done = subprocess.run([sys.executable, "-c", _TRIMMED, *names], capture_output=True,
                          text=True, timeout=60, check=True)
    released_kb = int(done.stdout)
    assert released_kb > 4_000, released_kb  # 9.5 MB here; the names are 1.2 MB as bytes


def test_the_names_of_files_done_are_let_go_of(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """fix and check hand out a folder's names a run at a time and keep none they
    handed out: at the end of a big run only its changed files' records are held."""
    from tfpolicy.files.listing import manifest_files
    from tfpolicy.files.runner import _batches

    for index in range(3 * MANY):
        (tmp_path / f"m-{index:05d}.yaml").touch()
    monkeypatch.chdir(tmp_path)
    _batches(list(manifest_files((".",))), jobs=2)  # what is loaded once (the CPU count's reading) is loaded
    tracemalloc.start()
    try:
        total, runs = _batches(list(manifest_files((".",))), jobs=2)
        listed = tracemalloc.get_traced_memory()[0]
        taken = [name for run in runs for name in run[:1]]  # a run is dropped once read
        left = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert total == 3 * MANY
    assert taken == [f"m-{index:05d}.yaml" for index in range(0, 3 * MANY, 64)]
    # All given back but the names taken and what Python keeps for reuse (up to 2,000
    # small tuples of the walk, 112 KB); were the runs still held, nearly all of it
    # would be left.
    assert left < listed / 4, (listed, left)
