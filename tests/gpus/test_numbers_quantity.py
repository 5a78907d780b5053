"""Quantities parsed as Kubernetes' ``resource.ParseQuantity`` does, bounded (issue 8 §2).

Every input returns an exact value or raises ``QuantityError``: arbitrary text, arbitrary
YAML scalars, and the adversarial corners (huge exponents and digit counts), none of which
may make the parser build a number beyond the bound (a hang, guarded by an alarm; how fast
parsing is belongs to the benchmark).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import MAX_MAGNITUDE, QuantityError, canonical, parse_quantity

HANG_GUARD = 30  # seconds: a parse that computes 10**(10**9) never returns; any other does
NANO = Fraction(1, 10**9)


@pytest.mark.parametrize(("text", "value"), [
    ("30", 30), ("149.7", Fraction(1497, 10)), ("8Gi", 8 << 30), ("1.5Gi", 3 << 29),
    ("512Mi", 512 << 20), ("1e3", 1000), ("1E3", 1000), ("1E", 10**18), ("+5", 5), ("-5", -5),
    ("1.", 1), ("1.G", 10**9), (".5", Fraction(1, 2)), ("0", 0), ("000", 0), ("0.000", 0),
    ("100m", Fraction(1, 10)), ("1e-3", Fraction(1, 1000)), ("0" * 5000 + "7", 7),
    # Kubernetes rounds a non-zero value up, away from zero, to a whole nano.
    ("0.1n", NANO), ("1e-999999999", NANO), ("-1e-30", -NANO), ("1.0000000001", 1 + NANO),
    ("9223372036854775807", MAX_MAGNITUDE), ("1e0000000000000005", 10**5),
    # YAML numbers are read as the JSON numbers Kubernetes receives.
    (7, 7), (1.5, Fraction(3, 2)), (0.1, Fraction(1, 10)), (1e18, 10**18), (5e-324, NANO),
])
def test_values_as_kubernetes_reads_them(text: Any, value: Fraction | int) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize(("text", "reason"), [
    ("1e999999999", "out of range"), ("1" + "0" * 5000, "out of range"),
    ("9223372036854775808", "out of range"), ("8Ei", "out of range"),
    ("1e2147483648", "not an int32"), ("1e-2147483649", "not an int32"),  # Kubernetes wraps
    ("1e" + "9" * 5000, "not an int32"), ("." + "3" * 5000, "significant digits"),
    ("", "not a quantity"), (".", "no digits"), ("+", "no digits"), ("Gi", "no digits"),
    ("$GPU_PER_NODE", "not a quantity"), (" 1", "not a quantity"), ("1 ", "not a quantity"),
    ("1\n", "not a quantity"), ("1Ki5", "not a quantity"), ("1ki", "not a quantity"),
    ("1e", "not a quantity"), ("1e+", "not a quantity"), ("１", "not a quantity"),
    ("0x10", "not a quantity"), ("1_000", "not a quantity"), ("inf", "not a quantity"),
    (float("inf"), "finite"), (float("-inf"), "finite"), (float("nan"), "finite"),
    (True, "not a quantity"), (None, "not a quantity"), ([1], "not a quantity"),
    (10**4000, "out of range"), (-(2**63), "out of range"), (1e300, "out of range"),
])
def test_refused_with_a_reason(text: Any, reason: str) -> None:
    with pytest.raises(QuantityError, match=reason):
        parse_quantity(text)


def test_errors_show_a_short_excerpt_only() -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity("x" * 10_000)
    assert len(str(caught.value)) < 100


def test_canonical_forms() -> None:
    assert [canonical(t) for t in ("149.7", "1.5Gi", "0.1n", "1e-999999999", "2000m")] == [
        "149700m", "1536Mi", "1n", "1n", "2"]


@contextmanager
def _hang_guard(value: Any) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise AssertionError(f"no answer on {value!r:.80}")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(HANG_GUARD)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _bounded(value: Any) -> Fraction | None:
    with _hang_guard(value):
        try:
            result: Fraction | None = parse_quantity(value)
        except QuantityError:
            result = None
    if result is not None:
        assert abs(result) <= MAX_MAGNITUDE and (result / NANO).denominator == 1
    return result


# Text shaped like quantities, with the corners pushed: long digit runs, huge exponents.
digits = st.one_of(st.text("0123456789", max_size=6), st.text("0123456789", max_size=6000))
suffixes = st.sampled_from(["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M",
                            "G", "T", "P", "E", "i", "K", "e", "E+"])
exponents = st.builds(lambda e, n: f"{e}{n}", st.sampled_from(["e", "E", "e+", "e-", "E-"]),
                      st.one_of(st.integers(0, 40), st.integers(0, 10**12), st.integers(0)))
quantity_like = st.builds(
    lambda sign, whole, point, frac, tail: f"{sign}{whole}{point}{frac}{tail}",
    st.sampled_from(["", "+", "-"]), digits, st.sampled_from(["", "."]), digits,
    st.one_of(suffixes, exponents))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), quantity_like))
def test_any_text_returns_or_refuses_quickly(text: str) -> None:
    _bounded(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.sampled_from([".inf", "-.inf", ".nan", ".NaN", "true", "no", "~", "null", "0x1F", "0o17",
                     "017", "1:30", "1_000", "0b101", "1e9", "1.0e+9", "-1.5e-300", "1.0e+400",
                     "'$GPU_PER_NODE'", "!!float 1", "!!str 3", "[1]", "{a: 1}", '"1e999999999"']),
    st.integers(-(10**600), 10**600).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    quantity_like.filter(lambda t: len(t) < 2000),
))
def test_any_yaml_scalar_returns_or_refuses_quickly(scalar: str) -> None:
    try:
        parsed = yamlio.parse_document(f"v: {scalar}\n", file="s.yaml")
    except TfpolicyError:
        return  # not YAML: the loader's business
    _bounded(parsed.data["v"])


def _oracle(sign: str, whole: str, frac: str, suffix: str) -> Fraction:
    """An independent reading with Decimal: exact value, then up to a whole nano."""
    factors = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
    powers = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15,
              "E": 18}
    with localcontext() as ctx:
        ctx.prec = 200
        value = Decimal(f"{whole or '0'}.{frac or '0'}")
        if suffix not in powers and suffix not in factors:  # e<exponent>
            value = value.scaleb(int(suffix[1:]))
        else:
            value = value.scaleb(powers.get(suffix, 0)) * factors.get(suffix, 1)
        value = value.quantize(Decimal("1e-9"), rounding=ROUND_CEILING)
    return Fraction(value) * (-1 if sign == "-" else 1)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["", "+", "-"]), st.text("0123456789", max_size=12),
       st.text("0123456789", max_size=14), st.one_of(suffixes.filter(lambda s: s in (
           "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E")),
           st.integers(-30, 12).map(lambda e: f"e{e}")))
def test_agrees_with_an_exact_decimal_reading(sign: str, whole: str, frac: str,
                                              suffix: str) -> None:
    text = f"{sign}{whole}.{frac}{suffix}" if frac else f"{sign}{whole}{suffix}"
    if not (whole or frac):
        with pytest.raises(QuantityError):
            parse_quantity(text)
        return
    expected = _oracle(sign, whole, frac, suffix)
    if abs(expected) > MAX_MAGNITUDE:
        with pytest.raises(QuantityError, match="out of range"):
            parse_quantity(text)
    else:
        assert parse_quantity(text) == expected
