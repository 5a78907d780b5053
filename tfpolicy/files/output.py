"""Writing at the edge: ``fix``'s in-place rewrites, which must never lose anyone's work.

The contract (README, ``fix``):

* **All or nothing up front.** Every target is checked (links, hard links,
  permissions) and every new text is written to a temp file beside its
  target before the first file is replaced; any failure there removes the
  temp files and leaves every file as it was (exit 2). Both happen as each
  file's new text comes in, while the engine still works on later files
  (``Writes``); a failure is held until every file went through the engine,
  so which error is reported does not depend on that overlap: a file the
  engine refuses first, then the first target refused, then the first temp
  file that could not be written.
* **Concurrent edits win, or are kept and reported.** Just before a file
  is replaced, its size, mtime and content hash are compared with what was
  read; if it changed, it is left alone and reported. A writer that gets in after
  that check has its bytes kept beside the file, reported (``tfpolicy.files.swap``).
* **Old or new, never half.** Every temp file is written, then one
  ``syncfs`` per file system (``flush``) makes them all durable (one flush
  per run instead of an fsync per file: docs/speed.md), then each
  is renamed over its target, then each folder written to is fsynced once.
  A killed process leaves each file old or new (the rename is atomic);
  after a power loss, a file whose rename reached the disk has its new
  bytes, since they were synced before any rename; once ``fix`` has exited,
  every rename is on disk. Mode is kept, and owner and group where the
  runner may set them.
* **No orphans for good.** Temp files are named ``.NAME.PID.RANDOM.tfpolicy``;
  one left by a killed run (its process gone) is removed by the next run
  over that folder.
* **Links.** A symlink is written through, at its target (the link stays a
  link), when the target is inside the repository; otherwise it is refused.
  A file with several hard links is refused: replacing it would split them.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import random
import re
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import Seen, unchanged
from tfpolicy.files.swap import Done, Kept, settle_all, swap, sync_folder
from tfpolicy.files.targets import Planner, Target
from tfpolicy.records import Record

SUFFIX = ".tfpolicy"
_TEMP = re.compile(r"^\..*\.(\d+)\.[a-z0-9_]{8}" + re.escape(SUFFIX) + "$")
_NAME_ROOM = 100  # of a file's name kept in its temp file's name (NAME_MAX is 255)
_RENAMERS = 8  # renames in flight at once (see _commit_all)


class _Staged(Record):
    """A temp file written and what its commit needs: of the plan, neither the new bytes
    nor the old file's status (mode and owner are on the temp file already)."""

    shown: str
    real: str  # not a Path, held for each of thousands of files (docs/speed.md)
    seen: Seen
    temp: str


class Writes:
    """``fix``'s writes, planned and staged one by one as new texts come in, and committed
    once all came in (the contract above). Used as a context manager: on the way out,
    every temp file not renamed in is removed, whatever happened."""

    def __init__(self, cwd: Path) -> None:
        self._planner = Planner(cwd)
        self._staged: list[_Staged] = []
        self._renamed: list[bool] = []
        self._kept: dict[int, Kept] = {}  # conflict copies, by position in _staged
        self._refused: TfpolicyError | None = None  # the first target fix must not write
        self._failed: TfpolicyError | None = None  # the first temp file not written
        self._prefix = f".%s.{os.getpid()}."

    def __enter__(self) -> Writes:
        return self

    def __exit__(self, *exc: object) -> None:
        for index, item in enumerate(self._staged):
            if index >= len(self._renamed) or not self._renamed[index]:
                with contextlib.suppress(OSError):
                    os.unlink(item.temp)

    def add(self, shown: str, data: bytes, seen: Seen) -> None:
        """Plan one file's write and, while nothing failed, stage it."""
        try:
            target = self._planner.plan(shown, data, seen)
        except TfpolicyError as exc:
            self._refused = self._refused or exc
            return
        if target is None or self._refused is not None or self._failed is not None:
            return
        try:
            self._staged.append(_stage(target, self._prefix))
        except TfpolicyError as exc:
            self._failed = exc

    def temps(self) -> set[str]:
        return {item.temp for item in self._staged}

    def conflicts(self) -> list[tuple[str, Kept]]:
        """Files another program wrote to (or held open) as they were replaced, by their
        given names, each with its kept old file; known once ``commit`` ran, even if it raised."""
        return [(self._staged[index].shown, kept) for index, kept in sorted(self._kept.items())]

    def commit(self, written: Callable[[str], None]) -> list[str]:
        """Replace every target still as it was read, or raise the error held; each file
        replaced goes to ``written`` and those changed meanwhile are returned, in order,
        by the names they were given."""
        error = self._refused or self._failed
        if error is not None:
            raise error
        self._renamed = _commit_all(self._staged, self._kept)
        for item, replaced in zip(self._staged, self._renamed, strict=True):
            if replaced:
                written(item.shown)
        return [item.shown for item, replaced in zip(self._staged, self._renamed, strict=True)
                if not replaced]


def clean_stale(folders: Iterable[Path], keep: set[str]) -> None:
    """Remove temp files a killed ``fix`` left in these folders (their process is gone),
    but those of this run (``keep``)."""
    for folder in sorted(set(folders)):
        for entry, pid in _temps_in(folder):
            if entry.path not in keep and entry.is_file(follow_symlinks=False) \
                    and not _alive(pid):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _temps_in(folder: Path) -> list[tuple[os.DirEntry[str], int]]:
    """The temp files in ``folder``, with the pid in each name: only those are kept: a
    folder's directory entries, for every manifest in it, would add up (docs/speed.md)."""
    try:
        with os.scandir(folder) as entries:
            return [(entry, int(found[1])) for entry in entries
                    if (found := _TEMP.match(entry.name))]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # ours from before this run can only be a previous, dead process's
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # someone else's process, or not a pid at all
        return True
    return True


def flush(folders: Iterable[Path]) -> None:
    """Every file written in ``folders`` on disk: one ``syncfs`` per file system they
    are on (Linux), so a run waits for its own writes, not for every other
    program's on every disk as ``sync`` does; one ``sync`` where ``syncfs`` is
    missing or fails. Both return once the data is written."""
    devices: dict[int, Path] = {}
    for folder in sorted(folders):
        with contextlib.suppress(OSError):  # gone: its rename will say so
            devices.setdefault(os.stat(folder).st_dev, folder)
    if _syncfs is None or not all(_synced(folder) for folder in devices.values()):
        os.sync()


def _synced(folder: Path) -> bool:
    assert _syncfs is not None
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return bool(_syncfs(fd) == 0)
    finally:
        os.close(fd)


def _load_syncfs() -> Callable[[int], int] | None:
    """glibc's ``syncfs(2)`` (Linux 2.6.39), which Python does not wrap."""
    if sys.platform != "linux":
        return None
    try:
        function: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    return function


_syncfs = _load_syncfs()


def _commit_all(staged: list[_Staged], conflicts: dict[int, Kept] | None = None) -> list[bool]:
    """Rename each staged file in (and whether it was), every temp file's bytes flushed
    first; each folder is synced once, even on error; then each old file is settled
    (``_settle``), a conflict copy's path going to ``conflicts`` by position.

    A rename over a file mostly waits on the file system's journal, not the
    CPU, so eight go at a time (docs/speed.md, "Figures behind the code"). Each file
    is still checked just before its own rename; the caller reports them afterwards,
    in order, so output is the same.
    """
    from concurrent.futures import ThreadPoolExecutor  # here: only fix renames
    folders = _folders(staged)  # where the temps are, beside their targets
    if folders:  # every temp file's bytes on disk before the first rename
        flush(folders)
    outcomes: list[Done | TfpolicyError] = [Done.LEFT] * len(staged)
    try:
        with ThreadPoolExecutor(max_workers=_RENAMERS) as pool:
            for start, done in enumerate(pool.map(_commit_each, _dealt(staged))):
                outcomes[start::_RENAMERS] = done
    finally:  # even on error: an old file a writer changed must not be lost with the run
        for folder in sorted(folders):
            sync_folder(folder)
        kept = settle_all(staged, [o is Done.SWAPPED for o in outcomes], _RENAMERS)
        (conflicts if conflicts is not None else {}).update(kept)
    for outcome in outcomes:  # the first error, once all are through
        if isinstance(outcome, TfpolicyError):
            raise outcome
    return [outcome in (Done.SWAPPED, Done.REPLACED) for outcome in outcomes]


def _stage(target: Target, prefix: str) -> _Staged:
    try:
        fd, temp = _create(target.real, prefix % target.real.name[:_NAME_ROOM])
    except OSError as exc:
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=target.shown) from None
    try:
        _fill(fd, target.data, target.info)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=target.shown) from None
    return _Staged(target.shown, str(target.real), target.seen, temp)


_NAMES = random.Random()  # seeded from the OS: temp names must not repeat across runs
_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC


def _create(real: Path, prefix: str) -> tuple[int, str]:
    """A new temp file beside ``real``, readable by its owner only until ``_fill`` sets the
    mode: ``tempfile.mkstemp``'s rule, without its per-call overhead (a name taken is
    skipped, as there)."""
    for _ in range(100):
        temp = os.path.join(real.parent, prefix + "".join(_NAMES.choices(_LETTERS, k=8))
                            + SUFFIX)
        try:
            return os.open(temp, _FLAGS, 0o600), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temp file name")


def _fill(fd: int, data: bytes, info: os.stat_result) -> None:
    """The new bytes, with the old file's owner (where allowed) and mode; ``write_all``
    syncs all temp files at once before any rename."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        _keep_owner(fd, info)
        os.fchmod(fd, stat.S_IMODE(info.st_mode))  # after chown, which clears suid
    finally:
        os.close(fd)


def _keep_owner(fd: int, info: os.stat_result) -> None:
    """Owner and group as they were; only root may give a file away, but a runner may
    keep a group it belongs to."""
    try:
        os.fchown(fd, info.st_uid, info.st_gid)
    except PermissionError:
        with contextlib.suppress(PermissionError):
            os.fchown(fd, -1, info.st_gid)


def _folders(staged: list[_Staged]) -> set[Path]:
    """The folders the staged files are in, each made a Path once."""
    return {Path(folder) for folder in {os.path.dirname(item.real) for item in staged}}


def _dealt(staged: list[_Staged]) -> list[list[_Staged]]:
    """The files dealt out to the renaming threads like cards: one future per thread,
    where one per file would be held for each of thousands of files."""
    return [staged[start::_RENAMERS] for start in range(_RENAMERS)]


def _commit_each(items: list[_Staged]) -> list[Done | TfpolicyError]:
    """Each of ``items`` committed in turn, an error kept in its place."""
    outcomes: list[Done | TfpolicyError] = []
    for item in items:
        try:
            outcomes.append(_commit(item))
        except TfpolicyError as exc:
            outcomes.append(exc)
    return outcomes


def _commit(staged: _Staged) -> Done:
    """Put the temp file in the target's place unless the target changed since it was read."""
    if not unchanged(staged.real, staged.seen):
        return Done.LEFT
    try:
        return swap(staged.temp, staged.real, _spare_name)
    except FileNotFoundError:  # removed since the check: not brought back
        return Done.LEFT
    except OSError as exc:
        raise TfpolicyError(f"cannot replace: {exc.strerror}", file=staged.shown) from None


def _spare_name(temp: str) -> str:
    """A second unused temp name beside ``temp``, of the same shape (so a killed run's is
    cleaned up like any temp file)."""
    return (f"{temp.removesuffix(SUFFIX)}.{os.getpid()}."
            f"{''.join(_NAMES.choices(_LETTERS, k=8))}{SUFFIX}")
