"""Kubernetes resource quantities (``resource.Quantity``), parsed as Kubernetes does, bounded.

The grammar and the rounding are those of k8s.io/apimachinery
``pkg/api/resource/quantity.go`` (``ParseQuantity``): an optional sign, digits
with an optional point, then a binary suffix (``Ki`` … ``Ei``), a decimal one
(``n u m k M G T P E``) or ``e``/``E`` and a signed exponent; a non-zero value
is rounded up, away from zero, to a whole nano.

Where Kubernetes is lax or wraps around, tfpolicy refuses instead of guessing,
and no input makes it compute with numbers of millions of digits:

- no digit at all (``"."``, ``"+"``, ``"Gi"``): Kubernetes reads 0, which no one means;
- an exponent outside int32: ``suffix.go`` (``interpret``) casts it to int32, so it wraps;
- a magnitude above 2^63-1: ``math.go`` ``maxAllowed``, where Kubernetes caps binary
  quantities and beyond which its int64 accessors (``Value``, ``MilliValue``) fail;
- more than 64 significant digits (an int64 with nano precision needs 28).

A container's resources reach the API server as JSON, where ``Quantity.UnmarshalJSON``
(k8s.io/apimachinery ``pkg/api/resource/quantity.go:733-752``) strips the quotes of the
JSON string it was sent, trims white space, then parses: :func:`resource_quantity` reads
a resource value so (``" 1"`` is 1). An annotation is a plain string the TensorFusion
webhook parses with ``ParseQuantity`` itself, untrimmed, and silently ignores when it
fails (NexusGPU/tensor-fusion ``internal/webhook/v1/tf_parser.go:607-617``):
:func:`parse_quantity` reads those, and tfpolicy validates them up front.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

MAX_MAGNITUDE = 2**63 - 1
MAX_DIGITS = 64
_NANO = 10**9
_INT32 = 2**31
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# Linear-time: no two parts can match the same characters.
_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<whole>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE](?P<exp>[+-]?[0-9]+))?"
)


class QuantityError(ValueError):
    """Not a Kubernetes quantity, or one out of range."""


def parse_quantity(text: str | int | float) -> Fraction:
    """Exact value of a quantity such as ``"30"``, ``"149.7"``, ``8Gi``, ``512Mi``.

    YAML numbers are read as Kubernetes reads them (as the JSON number they become).
    """
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise QuantityError(f"not a quantity: {_shown(text)}")
    if isinstance(text, int):
        if abs(text) > MAX_MAGNITUDE:
            raise QuantityError(f"out of range: a quantity is at most {MAX_MAGNITUDE}")
        return Fraction(text)
    if isinstance(text, float) and not math.isfinite(text):
        raise QuantityError(f"not a quantity: {text!r} is not a finite number")
    return _parse_text(repr(text) if isinstance(text, float) else text)


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Fraction:
    """A quantity's text as an exact number; cached, since a plan reads the same few
    quantities for thousands of pods (a Fraction is immutable, an error is not cached)."""
    match = _RE.fullmatch(text)
    if match is None:
        raise QuantityError(f"not a quantity: {_shown(text)}")
    whole, frac = match["whole"], match["frac"] or ""
    if not whole and not frac:
        raise QuantityError(f"not a quantity: {_shown(text)} has no digits")
    suffix = match["suffix"] or ""
    scale = _exponent(match["exp"], text) if match["exp"] else _DECIMAL.get(suffix, 0)
    digits = (whole + frac).lstrip("0")
    significant = digits.rstrip("0")
    if not significant:
        return Fraction(0)
    scale += len(digits) - len(significant) - len(frac)
    value = _magnitude(significant, scale, _BINARY.get(suffix, 1), text)
    return -value if match["sign"] == "-" else value


# What Go's strings.TrimSpace removes from the JSON text of a string that encoding/json
# leaves as it is: every Unicode space but those JSON escapes (the control characters
# and U+2028, U+2029, sent as ``\t``, ``\u2028``, ..., which then fail to parse).
_JSON_SPACE = " \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" \
    "\u2008\u2009\u200a\u202f\u205f\u3000"


def resource_quantity(value: str | int | float) -> Fraction:
    """A container resource's value as the API server reads it from the JSON it receives
    (``Quantity.UnmarshalJSON``): a string trimmed of white space first, so ``" 1"`` is 1;
    a YAML number as the JSON number it becomes."""
    if isinstance(value, str):
        return parse_quantity(value.strip(_JSON_SPACE))
    return parse_quantity(value)


def served(value: str | int | float) -> str:
    """The text the API server serves for a resource's value: what it parsed, when
    ``ParseQuantity`` kept it (a canonical spelling: ``"2"``, ``"+1"``, ``"500m"``), else the
    canonical form (``"1000m"`` is served as ``"1"``, ``"1.0"`` as ``"1"``) (quantity.go:
    278-345, the fast path that "reuses the string"). The webhook reads a GPU count from it."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        value = int(value)  # a JSON number as Go writes it: 2.0 is 2
    text = value.strip(_JSON_SPACE) if isinstance(value, str) else str(value)
    if isinstance(value, float):
        text = repr(value)
    parse_quantity(text)
    return text if text == "0" or _kept(text) else canonical(text)


def _kept(text: str) -> bool:
    """``ParseQuantity`` keeps the string of a value it reads in its fast path when the
    digits are canonical: no leading zero, a decimal scale a multiple of 3 with no trailing
    ``000``, a binary value not a multiple of 8 (k8s.io/apimachinery quantity.go:315-340)."""
    match = _RE.fullmatch(text)
    assert match is not None
    whole, frac, suffix = match["whole"].lstrip("0") or "0", match["frac"] or "", match["suffix"]
    shifted = whole + frac
    if suffix in _BINARY:
        return not frac and len(shifted) <= 14 and int(shifted) % 8 != 0
    exponent = int(match["exp"]) if match["exp"] else _DECIMAL.get(suffix or "", 0)
    scale = exponent - len(frac)
    return (len(shifted) <= 18 and scale >= -9 and scale % 3 == 0
            and not shifted.endswith("000") and shifted[0] != "0")


def resource_problem(value: object) -> str:
    """What the API server says of an extended resource's value (a GPU's): ``""`` when it
    takes it. Every extended resource is a non-negative whole number (kubernetes/kubernetes
    ``pkg/apis/core/validation/validation.go``, ``ValidateResourceQuantityValue``:
    ValidateNonnegativeQuantity, and "must be an integer" for an integer resource)."""
    try:
        amount = resource_quantity(value)  # type: ignore[arg-type]
    except QuantityError as exc:
        return f"{exc}: the API server refuses it (not a Kubernetes quantity)"
    if amount < 0:
        return "must be greater than or equal to 0: the API server refuses a negative count"
    if amount.denominator != 1:
        return "must be an integer: an extended resource admits no fraction"
    return ""


def _exponent(text: str, whole: str) -> int:
    digits = text.lstrip("+-").lstrip("0")
    value = int(text) if len(digits) <= 10 else _INT32
    if not -_INT32 <= value < _INT32:
        raise QuantityError(f"out of range: the exponent of {_shown(whole)} is not an int32")
    return value


def _magnitude(digits: str, scale: int, factor: int, text: str) -> Fraction:
    """``digits × 10^scale × factor`` rounded up to a nano, bounded before any arithmetic."""
    if len(digits) - 1 + scale >= 19:  # at least 10^19 > 2^63-1
        raise QuantityError(f"out of range: {_shown(text)} is above {MAX_MAGNITUDE}")
    if len(digits) + scale <= -28:  # below 10^-28 × 2^60 < 1n: Kubernetes rounds up to 1n
        return Fraction(1, _NANO)
    if len(digits) > MAX_DIGITS:
        raise QuantityError(f"{_shown(text)} has more than {MAX_DIGITS} significant digits")
    exact = int(digits) * Fraction(10) ** scale * factor
    nanos = -(-exact.numerator * _NANO // exact.denominator)
    if nanos > MAX_MAGNITUDE * _NANO:
        raise QuantityError(f"out of range: {_shown(text)} is above {MAX_MAGNITUDE}")
    return Fraction(nanos, _NANO)


def _shown(value: object) -> str:
    """A short excerpt: an error names the value, it does not echo a whole field."""
    if isinstance(value, str):
        return repr(value if len(value) <= 32 else value[:32] + "…")
    return type(value).__name__ if not isinstance(value, bool) else repr(value)


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
    """Every parsed value is a whole number of nanos, so some suffix fits exactly."""
    for suffix in ("E", "P", "T", "G", "M", "k", "", "m", "u", "n"):
        scaled = value / Fraction(10) ** _DECIMAL[suffix]
        if scaled.denominator == 1 and (scaled != 0 or suffix == ""):
            return f"{scaled.numerator}{suffix}"
    raise AssertionError(f"{value} is not a whole number of nanos")


def milli(text: str | int | float) -> int:
    """Integer thousandths (milli-TFLOPS), rounded up as Kubernetes' MilliValue does."""
    value = parse_quantity(text) * 1000
    return -(-value.numerator // value.denominator)


def whole(text: str | int | float) -> int:
    """Integer value rounded up (bytes, counts), as Kubernetes' Value does."""
    value = parse_quantity(text)
    return -(-value.numerator // value.denominator)
