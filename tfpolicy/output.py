"""Writing at the edge: ``fix``'s in-place rewrites, which must never lose anyone's work.

The contract (README, ``fix``):

* **All or nothing up front.** Every target is checked (links, hard links,
  permissions) and every new text is written to a temp file beside its
  target before the first file is replaced; any failure there removes the
  temp files and leaves every file as it was (exit 2).
* **Concurrent edits win.** Just before a file is replaced, its size,
  mtime and content hash are compared with what was read; if it changed,
  it is left alone and reported.
* **Old or new, never half.** Every temp file is written, then one
  ``sync`` makes them all durable (one flush per run instead of an fsync
  per file, which cost ~3 ms each), then each is renamed over its target,
  then each folder written to is fsynced once. A killed process leaves each
  file old or new (the rename is atomic); after a power loss, a file whose
  rename reached the disk has its new bytes, since they were synced before
  any rename; once ``fix`` has exited, every rename is on disk. Mode is
  kept, and owner and group where the runner may set them.
* **No orphans for good.** Temp files are named ``.NAME.PID.RANDOM.tfpolicy``;
  one left by a killed run (its process gone) is removed by the next run
  over that folder.
* **Links.** A symlink is written through, at its target (the link stays a
  link), when the target is inside the repository; otherwise it is refused.
  A file with several hard links is refused: replacing it would split them.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.sources import Seen, read_seen

SUFFIX = ".tfpolicy"
_TEMP = re.compile(r"^\..*\.(\d+)\.[a-z0-9_]{8}" + re.escape(SUFFIX) + "$")
_NAME_ROOM = 100  # of a file's name kept in its temp file's name (NAME_MAX is 255)
_RENAMERS = 8  # renames in flight at once (see _commit_all)


@dataclass(frozen=True, slots=True)
class Target:
    shown: str  # the path as the user gave it
    real: Path  # where the bytes go: the file itself, or a symlink's final target
    data: bytes
    seen: Seen


@dataclass(frozen=True, slots=True)
class _Staged:
    target: Target
    temp: Path


def plan_writes(items: Iterable[tuple[str, bytes, Seen]], cwd: Path) -> list[Target]:
    """Where each new text goes; any target fix must not write refuses them all (exit 2).

    A file named twice (itself and a link to it) is written once, under its first name.
    """
    targets: dict[Path, Target] = {}
    for shown, data, seen in items:
        target = _target(shown, data, seen, cwd)
        targets.setdefault(target.real, target)
    return list(targets.values())


def _target(shown: str, data: bytes, seen: Seen, cwd: Path) -> Target:
    named = Path(os.path.normpath(Path(shown).absolute()))
    real = named.resolve()
    if real != named and not real.is_relative_to(_repository(named, cwd)):
        raise TfpolicyError(f"a symlink to {real}, outside the repository: fix writes only "
                            "inside it (nothing was written)", file=shown)
    try:
        info = real.stat()
    except OSError as exc:  # removed (or its folder renamed) since it was read
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=shown) from None
    if info.st_nlink > 1:
        raise TfpolicyError(f"has {info.st_nlink} hard links: replacing it would split them "
                            "(nothing was written; make it a plain file or a symlink)",
                            file=shown)
    if not os.access(real, os.W_OK) or not os.access(real.parent, os.W_OK | os.X_OK):
        raise TfpolicyError("not writable (nothing was written)", file=shown)
    return Target(shown, real, data, seen)


def _repository(named: Path, cwd: Path) -> Path:
    """The repository of a file named through a link: the nearest folder with ``.git``,
    else the working directory when the file is under it, else the file's own folder."""
    for folder in named.parents:
        if (folder / ".git").exists():
            return folder.resolve()
    return (cwd if named.is_relative_to(cwd) else named.parent).resolve()


def clean_stale(folders: Iterable[Path]) -> None:
    """Remove temp files a killed ``fix`` left in these folders (their process is gone)."""
    for folder in sorted(set(folders)):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            found = _TEMP.match(entry.name)
            if found and entry.is_file(follow_symlinks=False) and not _alive(int(found[1])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


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


def write_all(targets: list[Target], written: Callable[[Target], None]) -> list[Target]:
    """Replace every target still as it was read; those changed meanwhile are returned."""
    staged: list[_Staged] = []
    try:
        for target in targets:
            staged.append(_stage(target))
        if staged:
            os.sync()  # every temp file's bytes on disk before the first rename
        return _commit_all(staged, written)
    finally:
        for item in staged:
            item.temp.unlink(missing_ok=True)


def _commit_all(staged: list[_Staged], written: Callable[[Target], None]) -> list[Target]:
    """Rename each staged file in; each folder renamed into is synced once, even on error.

    A rename over a file mostly waits on the file system's journal, not the
    CPU: eight at a time, 3,000 renames took 0.4 s where one by one took 4 to
    8 s on a busy disk. Each file is still checked just before its own
    rename; the callback runs afterwards, in order, so output is the same.
    """
    try:
        with ThreadPoolExecutor(max_workers=_RENAMERS) as pool:
            done = list(pool.map(_commit, staged))  # the first error, once all are through
    finally:
        for folder in sorted({s.target.real.parent for s in staged}):
            _sync_folder(folder)
    for item, replaced in zip(staged, done, strict=True):
        if replaced:
            written(item.target)
    return [item.target for item, replaced in zip(staged, done, strict=True) if not replaced]


def _stage(target: Target) -> _Staged:
    real = target.real
    try:
        info = real.stat()
        fd, temp = tempfile.mkstemp(prefix=f".{real.name[:_NAME_ROOM]}.{os.getpid()}.",
                                    suffix=SUFFIX, dir=real.parent)
    except OSError as exc:
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=target.shown) from None
    staged = _Staged(target, Path(temp))
    try:
        _fill(fd, target.data, info)
    except OSError as exc:
        staged.temp.unlink(missing_ok=True)
        raise TfpolicyError(f"cannot write: {exc.strerror} (nothing was written)",
                            file=target.shown) from None
    return staged


def _fill(fd: int, data: bytes, info: os.stat_result) -> None:
    """The new bytes, with the old file's owner (where allowed) and mode; ``write_all``
    syncs all temp files at once before any rename."""
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        _keep_owner(handle.fileno(), info)
        os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))  # after chown, which clears suid


def _keep_owner(fd: int, info: os.stat_result) -> None:
    """Owner and group as they were; only root may give a file away, but a runner may
    keep a group it belongs to."""
    try:
        os.fchown(fd, info.st_uid, info.st_gid)
    except PermissionError:
        with contextlib.suppress(PermissionError):
            os.fchown(fd, -1, info.st_gid)


def _commit(staged: _Staged) -> bool:
    """Rename the temp file over the target unless the target changed since it was read."""
    target = staged.target
    if not _unchanged(target):
        return False
    try:
        os.replace(staged.temp, target.real)
    except OSError as exc:
        raise TfpolicyError(f"cannot replace: {exc.strerror}", file=target.shown) from None
    return True


def _unchanged(target: Target) -> bool:
    try:
        info = target.real.stat()
        if (info.st_size, info.st_mtime_ns) != (target.seen.size, target.seen.mtime_ns):
            return False
        return read_seen(str(target.real))[1].digest == target.seen.digest
    except (OSError, TfpolicyError):  # gone or unreadable now: not what was read
        return False


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable: a crash after exit must not bring the old file back."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def install_file(path: Path, data: bytes, mode: int, elsewhere: str = "another path") -> None:
    """Create or replace ``path`` atomically with ``mode``; a symlink there is refused.

    Writing through a link would overwrite (and chmod) whatever file it
    points at, which is not tfpolicy's to change. ``elsewhere`` says what
    the user can choose instead (the caller's option: ``another -o FILE``).
    """
    if path.is_symlink():
        raise TfpolicyError(f"is a symlink to {os.readlink(path)}: not overwriting what it "
                            f"points at (nothing was written; remove the link, or choose "
                            f"{elsewhere})", file=str(path))
    try:
        _install(path, data, mode)
    except OSError as exc:  # a folder in the way, a read-only home
        raise TfpolicyError(f"cannot write: {exc.strerror}", file=str(path)) from None


def _install(path: Path, data: bytes, mode: int) -> None:
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=SUFFIX,
                                dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
        os.replace(temp, path)
    finally:
        Path(temp).unlink(missing_ok=True)
    _sync_folder(path.parent)
