"""Documents known to satisfy their schema: the built-in policies, validated when the
package is tested (tests/commands/test_startup.py) instead of at every start.

A fingerprint covers the schema's name and bytes and the document's data, so a changed
schema or a changed document is validated like any other: only the saving is lost, and
the test names the fingerprints to record. Data of any type JSON has no exact counterpart for is
never known.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from tfpolicy.digest import sha256

# The built-in policies (tfpolicy/policies/*.yaml), one fingerprint per document.
VALIDATED: frozenset[str] = frozenset({
    "e0452e262d70dc9106519f8f11b4833f1b72d746601626751a6ec186f269792e",  # autoscale
    "5c2f7c82113839769e25e03f99e6912df4d6480b42cb98c6f5c1f81555575b5c",  # rightsize-example
    "6c195b55d36ef9b2f4f8a4a2371b28fe222423134a52977aba5ef064db0cee97",  # rollback
    "2e6a0b5a6eb94b70884f7fb56e876e5d74fb51ecc11aba0b5f8f1d0dbaa5439a",  # takeover
    "723c8bd27746f04a091c80d1c0bf1515509efa920f04c438286e394c0f887215",  # takeover-1
    "bfd0b9d708cfb47fe0fb454f70a69121cf46a0f918af0af19e8ae32b13aa130d",  # takeover-25
    "64eb513eb585673ccc2ec0aec37b71f51e9f51f04c1d4e8bfad64e79addc09c0",  # takeover-50
})

_SCALARS = (str, int, float, bool, type(None))


def known_valid(data: Any, name: str) -> bool:
    """Whether ``data`` is a document already validated against schema ``name``."""
    return bool(VALIDATED) and fingerprint(data, name) in VALIDATED


def fingerprint(data: Any, name: str) -> str | None:
    """The schema's and the document's digest; None for data JSON cannot say exactly."""
    schema = _schema(name)
    try:
        if schema is None or not _plain(data):
            return None
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode()
    except (TypeError, ValueError, RecursionError):  # ValueError: NaN, a lone surrogate
        return None
    return sha256(name.encode() + b"\0" + schema + b"\0" + text).hex()


def _plain(value: Any) -> bool:
    """Mappings with string keys, lists and JSON's scalars, each of its exact type."""
    if isinstance(value, dict):
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return type(value) in _SCALARS


@cache
def _schema(name: str) -> bytes | None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(here, "schemas", f"{name}.schema.json"), "rb") as handle:
            return handle.read()
    except OSError:  # not a plain folder (a zip): every document is validated
        return None
