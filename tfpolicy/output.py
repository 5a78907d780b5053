"""Writing at the edge: atomic in-place rewrites that keep the file's mode."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` with ``text``: temp file beside it, fsync, rename; mode kept.

    A reader (or a crash) sees the old file or the new one, never half of one.
    """
    target = Path(path)
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tfpolicy", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
