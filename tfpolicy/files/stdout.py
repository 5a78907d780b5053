"""Writing a manifest stream to stdout: every byte of it, or ``BrokenPipeError`` (exit 141).

A host takes a cut-off render for a whole one when it exits 0 (ArgoCD prunes
what is missing, kpt deletes it; docs/exit-codes.md). Python's buffered stdout
can end that way: when the pipe's reader goes away part-way through one large
write, the kernel reports a short write, not an error, and the rest of the
buffer was dropped without a word, and the process exited 0
(tests/hosts/test_hosts_cutoff.py holds the fix). So
the stream goes to the descriptor itself, each short write followed by one
for the rest, which then fails with ``EPIPE``; the command line turns that
into exit 141, as a shell reports a reader that went away.
"""

from __future__ import annotations

import io
import os
import sys
from typing import BinaryIO

_CHUNK = 1 << 20  # bytes read from a spool file per write


def write_out(text: str) -> None:
    """All of ``text`` (UTF-8) on stdout."""
    _write_all(text.encode("utf-8"))


def copy_out(source: BinaryIO) -> None:
    """All of ``source``, from where it stands to its end, on stdout."""
    while chunk := source.read(_CHUNK):
        _write_all(chunk)


def _write_all(data: bytes) -> None:
    fd = _stdout_fd()
    if fd is None:  # not a real descriptor (a test's captured stdout): its own write
        _write_stream(data)
        return
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:  # a non-blocking pipe that is full: wait until it drains
            import select

            select.select([], [fd], [])


def _write_stream(data: bytes) -> None:
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None:
        binary.write(data)
    else:
        sys.stdout.write(data.decode("utf-8"))
    sys.stdout.flush()


def _stdout_fd() -> int | None:
    """stdout's descriptor, after whatever Python still buffers for it went out first."""
    sys.stdout.flush()
    try:
        return sys.stdout.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
