"""A GPU's `tensor-fusion.ai/virtualization-capabilities` annotation → its isolation modes.

The node's hypervisor writes the device's capabilities there as JSON
(`pkg/hypervisor/backend/kubernetes/kubernetes_backend.go:322`, `:383-392`),
e.g. ``{"SupportsPartitioning":false,"SupportsSoftIsolation":true,
"SupportsHardIsolation":false,...}``. The allocator decodes it into a Go
struct (`filter/virtualization_capabilities.go:10-37`) and the isolation
filter asks one flag per mode (`gpu_isolation_mode_filter.go:56-76`): soft →
`SupportsSoftIsolation`, hard → `SupportsHardIsolation`, partitioned →
`SupportsPartitioning`; shared never asks.

What counts as "no metadata" (every mode allowed, the legacy behaviour) is
what Go's decoder makes of the text, reproduced here: a missing or empty
annotation, text that is not JSON, a top-level value that is not an object or
``null``, and an object where any of the struct's fields has the wrong type
(a string for a flag, a fraction or a negative number for a count). ``null``
and any object that decodes cleanly are metadata, so an absent flag means
"unsupported". Keys match the fields as Go's decoder matches them, ignoring
ASCII case, the last one winning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.scheduler.model import Isolation

ANNOTATION = "tensor-fusion.ai/virtualization-capabilities"
_FLAGS = {"supportspartitioning": Isolation.PARTITIONED,
          "supportssoftisolation": Isolation.SOFT,
          "supportshardisolation": Isolation.HARD}
_OTHER_FLAGS = frozenset({"supportssnapshot", "supportsmetrics", "supportsremoting"})
_COUNTS = frozenset({"maxpartitions", "maxworkersperdevice"})  # uint32 fields
_UINT = re.compile(r"[0-9]+")
_MAX_LENGTH = 65_536  # an annotation is a few hundred bytes; this bounds the decoder


class _Number(str):
    """A JSON number kept as its literal, so that a count is checked as Go checks it."""


class _Pairs(list[tuple[str, Any]]):
    """A JSON object's members in order (duplicates kept: the last one wins in Go)."""


class _NotMetadataError(Exception):
    """Go's decoder would fail: the annotation is treated as absent."""


def isolations(raw: Any, where: str) -> frozenset[Isolation] | None:
    """The modes ``raw`` (the annotation's value, or None) allows; None: no metadata."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise TfpolicyError(f"annotation {ANNOTATION} must be a string ({where})")
    if len(raw) > _MAX_LENGTH:
        raise TfpolicyError(f"annotation {ANNOTATION} is over {_MAX_LENGTH} characters ({where})")
    try:
        return _decode(raw, where)
    except _NotMetadataError:
        return None


def _decode(raw: str, where: str) -> frozenset[Isolation]:
    value = _loads(raw)
    if value is None:  # Go decodes `null` into the zero struct without error
        return frozenset()
    if not isinstance(value, _Pairs):
        raise _NotMetadataError
    flags: dict[str, bool] = {}
    for key, item in value:
        field = _field(key, where)
        if field is None or item is None:  # unknown key; null leaves a field as it is
            continue
        if field in _COUNTS:
            _check_count(item)
        elif isinstance(item, bool):
            flags[field] = item
        else:
            raise _NotMetadataError
    return frozenset(mode for name, mode in _FLAGS.items() if flags.get(name))


def _loads(raw: str) -> Any:
    def refuse(_: str) -> Any:
        raise _NotMetadataError  # NaN and Infinity are not JSON to Go

    hook: Callable[[list[tuple[str, Any]]], Any] = _Pairs
    try:
        return json.loads(raw, object_pairs_hook=hook, parse_int=_Number, parse_float=_Number,
                          parse_constant=refuse)
    except (ValueError, RecursionError):
        raise _NotMetadataError from None


def _field(key: str, where: str) -> str | None:
    """The struct field ``key`` sets, matched without ASCII case as Go does."""
    if not key.isascii():
        # Go folds some non-ASCII letters onto ASCII ones (the Kelvin sign onto k);
        # rather than guess which, refuse.
        raise TfpolicyError(f"annotation {ANNOTATION} has a key that is not ASCII ({where})")
    folded = key.lower()
    known = folded in _FLAGS or folded in _OTHER_FLAGS or folded in _COUNTS
    return folded if known else None


def _check_count(item: Any) -> None:
    """A uint32 field: Go accepts only a plain non-negative integer literal that fits."""
    if not (isinstance(item, _Number) and len(item) <= 10 and _UINT.fullmatch(item)
            and int(item) < 2**32):
        raise _NotMetadataError
