"""SHA-256 of bytes, without paying for OpenSSL on a small run.

``hashlib`` loads ``_hashlib`` (OpenSSL) when it is imported, a cost a start that
hashes a policy and one manifest feels (docs/speed.md). CPython's own SHA-256 gives the same digest;
it is slower per byte, so it takes only small inputs, and only while nothing has
imported ``hashlib`` yet: a bulk ``fix`` that hashes thousands of files switches to
OpenSSL at its first large file.
"""

from __future__ import annotations

import sys

SMALL = 1 << 16  # bytes below which the built-in implementation is used

try:  # CPython 3.11 names its module _sha256, 3.12 and later _sha2
    from _sha256 import sha256 as _builtin  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the interpreter
    try:
        from _sha2 import sha256 as _builtin  # type: ignore[import-not-found]
    except ImportError:
        _builtin = None


def sha256(data: bytes) -> bytes:
    """The SHA-256 digest of ``data``."""
    if _builtin is not None and len(data) < SMALL and "hashlib" not in sys.modules:
        return bytes(_builtin(data).digest())
    import hashlib

    return hashlib.sha256(data).digest()
