"""Typed readers for inventory fields, and the size limits (see the package doc).

Every error names the JSON path (compact form) or the object and field
(kubectl form) and never echoes the value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import QuantityError, milli, parse_quantity, whole
from tfpolicy.scheduler.model import IsolationPolicy, Phase, Placement

MIB = 2**20
MIB = 2**20
MAX_NODES, MAX_GPUS = 10_000, 100_000
MAX_TFLOPS, MAX_VRAM, MAX_HOST, MAX_COST = 10**8, 2**24, 2**30, 10**10  # our units
SHAPE = re.compile(r"[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})"
                    r"(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]{1,3})?")


def keys(data: Mapping[str, Any], allowed: Iterable[str], path: str) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise TfpolicyError(f"unknown field {unknown[0]!r} ({path}.{unknown[0]}); "
                            f"expected one of {', '.join(sorted(allowed))}")


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TfpolicyError(f"expected a mapping ({path})")
    return value


def as_list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise TfpolicyError(f"expected a list ({path})")
    return value


def text(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise TfpolicyError(f"expected a non-empty string ({path})")
    return value


def integer(value: Any, path: str, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise TfpolicyError(f"expected an integer from 0 to {limit} ({path})")
    return value


def check_size(nodes: int, gpus: int, path: str) -> None:
    """Bound the simulation's memory and time before building anything."""
    if nodes > MAX_NODES or gpus > MAX_GPUS:
        raise TfpolicyError(f"the inventory is limited to {MAX_NODES} nodes and {MAX_GPUS} "
                            f"GPUs ({path})")


def enum(kind: type[Placement] | type[IsolationPolicy] | type[Phase], value: Any,
          path: str) -> Any:
    valid = [m.value for m in kind]
    if value not in valid:
        raise TfpolicyError(f"{value!r} is not one of {', '.join(valid)} ({path})")
    return kind(value)


def amount(value: Any, path: str, convert: Callable[[Any], Fraction | int], limit: int,
            shown: str) -> Fraction | int:
    """A quantity checked for shape before converting it (a huge exponent would
    hang exact arithmetic) and for range after; errors never echo the value."""
    if isinstance(value, bool):
        shaped = False
    elif isinstance(value, int | float):
        shaped = math.isfinite(value) and abs(value) < 10**30
    else:
        shaped = isinstance(value, str) and SHAPE.fullmatch(value) is not None
    try:
        result = convert(value) if shaped else None
    except (QuantityError, TypeError, ValueError):
        result = None
    if result is None:
        raise TfpolicyError(f"not a quantity, or not a finite one of at most 30 digits ({path})")
    if not 0 <= result <= limit:
        raise TfpolicyError(f"expected a quantity from 0 to {shown} ({path})")
    return result


def to_mib(value: Any) -> int:
    return -(-whole(value) // MIB)


def tflops_of(value: Any, path: str) -> int:
    return int(amount(value, path, milli, MAX_TFLOPS, "100000 TFLOPS"))


def vram_of(value: Any, path: str) -> int:
    return int(amount(value, path, to_mib, MAX_VRAM, "16Ti"))


def host_of(value: Any, path: str) -> int:
    return int(amount(value, path, to_mib, MAX_HOST, "1Pi"))


def cost_of(value: Any, path: str) -> int:
    micro = amount(value, path, lambda v: -(-parse_quantity(v) * 10**6 // 1), MAX_COST, "10000")
    return int(micro)


def unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise TfpolicyError(f"duplicate {what} name {name!r}")
        seen.add(name)


def name_of(obj: Mapping[str, Any]) -> str:
    return text(get(obj, "metadata", "name"), f"{obj.get('kind', 'object')} metadata.name")


def get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj
