"""Installing a file a command writes (a report, a plugin script): atomically, never through
a symlink, synced."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.output import SUFFIX
from tfpolicy.files.swap import sync_folder


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
    sync_folder(path.parent)
