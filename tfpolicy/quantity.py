"""Kubernetes resource quantities (``resource.Quantity``), parsed exactly.

The TensorFusion webhook silently ignores an unparsable quantity
(reference/tensor-fusion.md §1.2), so tfpolicy validates them up front.
"""

from __future__ import annotations

import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
}
_RE = re.compile(
    r"^(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)


class QuantityError(ValueError):
    """Not a Kubernetes quantity."""


def parse_quantity(text: str | int | float) -> Fraction:
    """Exact value of a quantity such as ``"30"``, ``"149.7"``, ``8Gi``, ``512Mi``."""
    if isinstance(text, bool):
        raise QuantityError(f"not a quantity: {text!r}")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        return Fraction(str(text))
    match = _RE.match(text.strip()) if isinstance(text, str) else None
    if match is None or text.strip() != text:
        raise QuantityError(f"not a quantity: {text!r}")
    number = Fraction(match["num"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])


def is_quantity(text: object) -> bool:
    try:
        parse_quantity(text)  # type: ignore[arg-type]
    except QuantityError:
        return False
    return True


def is_binary(text: str) -> bool:
    return any(text.endswith(s) for s in _BINARY)


def canonical(text: str) -> str:
    """Kubernetes' canonical form: ``149.7`` → ``149700m``, ``1.5Gi`` → ``1536Mi``."""
    value = parse_quantity(text)
    if is_binary(text) and value.denominator == 1 and value >= 1024:
        for suffix, factor in reversed(_BINARY.items()):
            if value % factor == 0:
                return f"{value // factor}{suffix}"
    return _canonical_decimal(value)


def _canonical_decimal(value: Fraction) -> str:
    for suffix in ("E", "P", "T", "G", "M", "k", "", "m", "u", "n"):
        scaled = value / _DECIMAL[suffix]
        if scaled.denominator == 1 and (scaled != 0 or suffix == ""):
            return f"{scaled.numerator}{suffix}"
    # Kubernetes rounds up below nano; so do we.
    nanos = -(-value.numerator * 10**9 // value.denominator)
    return f"{nanos}n"


def milli(text: str | int | float) -> int:
    """Integer thousandths (milli-TFLOPS), rounded up as Kubernetes' MilliValue does."""
    value = parse_quantity(text) * 1000
    return -(-value.numerator // value.denominator)


def whole(text: str | int | float) -> int:
    """Integer value rounded up (bytes, counts), as Kubernetes' Value does."""
    value = parse_quantity(text)
    return -(-value.numerator // value.denominator)
