"""Putting a new file in an old one's place, and settling the old one after: ``fix``'s
answer to another program writing the same file (docs/hosts.md, "fix while other
programs write the same files").

The new file takes the name by an exchange (``renameat2(RENAME_EXCHANGE)``), so the
old file, whatever it holds at that instant, takes the temp file's name instead of
vanishing. Once every file is through, each old file is removed only while a write
lease shows nobody has it open and its bytes are still what was read; otherwise it is
kept beside its file as ``NAME.tfpolicy-conflict`` and reported.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from pathlib import Path
from typing import NamedTuple, Protocol

from tfpolicy.files.sources import Seen, unchanged_fd


class Done(Enum):
    """What became of one staged file."""

    LEFT = "left"  # changed before the last check (or gone): not replaced
    SWAPPED = "swapped"  # replaced; the old file now has the temp file's name
    REPLACED = "replaced"  # replaced, the old file gone: no hard links here


def swap(temp: str, real: str, spare_name: Callable[[str], str]) -> Done:
    """``real`` gets the new bytes and ``temp`` the old file, in one atomic exchange where
    the file system has one; else the old file is linked aside first (a window of two
    calls in which another program's own rename over ``real`` would be lost)."""
    if _exchange(temp, real):
        return Done.SWAPPED
    spare = spare_name(temp)
    try:
        os.link(real, spare, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except OSError:  # no hard links on this file system: replaced, nothing to look at after
        os.replace(temp, real)
        return Done.REPLACED
    try:
        os.replace(temp, real)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(spare)
        raise
    os.replace(spare, temp)  # the temp name is free again: the old file takes it
    return Done.SWAPPED


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP})


def _exchange(temp: str, real: str) -> bool:
    """Swap the two names atomically (Linux 3.15, glibc 2.28); False where the kernel,
    the C library or the file system (NFS, some FUSE) has no exchange."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(temp), _AT_FDCWD, os.fsencode(real),
                  _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), real)


def _load_renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if sys.platform != "linux":
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                         ctypes.c_uint]
    function.restype = ctypes.c_int
    found: Callable[[int, bytes, int, bytes, int], int] = function
    return found


_renameat2 = _load_renameat2()

CONFLICT = ".tfpolicy-conflict"  # not a temp file's shape: never cleaned up


class Kept(NamedTuple):
    """An old file kept beside its target, and why."""

    path: str
    open: bool  # another program still had it open for writing; else its bytes changed


class Parked(Protocol):
    """A file replaced by ``swap``: its old file at ``temp``, as it was read (``seen``)."""

    @property
    def temp(self) -> str: ...
    @property
    def real(self) -> str: ...
    @property
    def seen(self) -> Seen: ...


def settle_all(items: Sequence[Parked], swapped: list[bool], threads: int) -> dict[int, Kept]:
    """Each swapped-out old file removed, or kept where a writer changed it after the last
    check or still holds it open; the kept copies by position. Dealt out to ``threads``
    threads like cards (one future per thread, not per file)."""
    if not any(swapped):
        return {}
    from concurrent.futures import ThreadPoolExecutor  # here: only a swap settles

    found: dict[int, Kept] = {}
    with lease_breaks_ignored(), ThreadPoolExecutor(max_workers=threads) as pool:
        for start, kept in enumerate(pool.map(
                lambda start: _settle_each(items[start::threads], swapped[start::threads]),
                range(threads))):
            found.update((start + threads * n, copy) for n, copy in kept)
    for folder in sorted({os.path.dirname(copy.path) for copy in found.values()}):
        sync_folder(Path(folder))
    return found


def _settle_each(items: Sequence[Parked], swapped: list[bool]) -> list[tuple[int, Kept]]:
    """One thread's share settled; the kept ones by their place in that share."""
    kept = []
    for n, (item, done) in enumerate(zip(items, swapped, strict=True)):
        copy = _settle(item) if done else None
        if copy is not None:
            kept.append((n, copy))
    return kept


def _settle(item: Parked) -> Kept | None:
    """The old file, now at the temp name: removed if nobody has it open for writing and
    it is still what was read, else kept beside the target under a name of its own.

    "Nobody has it open" is a write lease (Linux ``F_SETLEASE``), granted only when
    no other descriptor is open on the file, and held while the bytes are compared
    and the name removed: a writer that opened the file before the exchange and
    writes only now still finds its bytes kept. Where leases are not available
    (another owner, NFS), the bytes alone decide.
    """
    try:
        fd = os.open(item.temp, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # gone (not by us): nothing left to keep
    try:
        held = _lease(fd)
        still = held is not False and unchanged_fd(fd, item.seen)
        if still:
            with contextlib.suppress(OSError):
                os.unlink(item.temp)
            return None
    finally:
        os.close(fd)  # and with it the lease
    try:
        return Kept(_keep(item.temp, item.real), held is False)
    except OSError:  # it stays under its temp name, which the report names
        return Kept(item.temp, held is False)


def _lease(fd: int) -> bool | None:
    """A write lease on ``fd``'s file: True, taken; False, another descriptor is open on
    it; None, not to be had here (not Linux, not the owner, a file system without)."""
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


@contextlib.contextmanager
def lease_breaks_ignored() -> Iterator[None]:
    """SIGIO ignored while leases are held: a lease broken by someone opening the old
    file would otherwise end the process (SIGIO's default); the opener only waits
    until the lease is let go, a few system calls later."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "SIGIO"):
        yield
        return
    before = signal.signal(signal.SIGIO, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGIO, before)


def _keep(old: str, real: str) -> str:
    """``old`` renamed to ``real`` + CONFLICT (+ a number when a copy is there already)."""
    for number in range(1, 100):
        kept = real + CONFLICT + ("" if number == 1 else f".{number}")
        try:
            os.link(old, kept, follow_symlinks=False)  # never over an earlier copy
        except FileExistsError:
            continue
        except OSError:
            if os.path.lexists(kept):
                continue
            os.rename(old, kept)
            return kept
        with contextlib.suppress(OSError):
            os.unlink(old)
        return kept
    return old  # a hundred copies already: it stays under its temp name


def sync_folder(folder: Path) -> None:
    """Make the rename itself durable: a crash after exit must not bring the old file back."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
