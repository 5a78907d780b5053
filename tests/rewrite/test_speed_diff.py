"""The diff's and ``same``'s shortcut (``==`` then marshal bytes) decides as the plain walk.

``_surely_same`` may only say True where the values are equal as data,
types included; the diff skips what it says True to, so its edits must be
the ones the plain walk finds.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tfpolicy import edits
from tfpolicy.edits import _surely_same, diff

SCALARS = st.one_of(st.sampled_from([0, 1, -1, 0.0, -0.0, 1.0, True, False, None, "", "1",
                                     "true", math.nan, math.inf]),
                    st.integers(-3, 3), st.text(max_size=3))
DATA = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
    max_leaves=12)


def _plain_same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_plain_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_plain_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _near(data: Any) -> st.SearchStrategy[Any]:
    """``data`` itself, or with one leaf swapped for a scalar equal under ``==``."""
    swaps = {1: [1, 1.0, True], 0: [0, 0.0, -0.0, False]}  # keyed by value: 1 == 1.0 == True
    if isinstance(data, dict) and data:
        return st.sampled_from(sorted(data)).flatmap(
            lambda k: _near(data[k]).map(lambda v: {**data, k: v}))
    if isinstance(data, list) and data:
        return st.integers(0, len(data) - 1).flatmap(
            lambda i: _near(data[i]).map(lambda v: [*data[:i], v, *data[i + 1:]]))
    options = [data, *swaps.get(data, [])] if isinstance(data, int | float) else [data]
    return st.sampled_from(options)


@settings(max_examples=500, deadline=None)
@given(DATA.flatmap(lambda d: st.tuples(st.just(d), _near(d))))
def test_the_shortcut_says_same_only_of_equal_data(pair: tuple[Any, Any]) -> None:
    a, b = pair
    if _surely_same(a, b):
        assert _plain_same(a, b)
    assert edits.same(a, b) == _plain_same(a, b)


@settings(max_examples=300, deadline=None)
@given(DATA.flatmap(lambda d: st.tuples(st.just(d), _near(d))))
def test_the_diff_finds_what_the_plain_walk_finds(pair: tuple[Any, Any],
                                                  ) -> None:
    a, b = pair
    assume("nan" not in repr(a))  # the plain walk rewrites an unchanged NaN (nan != nan)
    shortcut = diff(a, b)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(edits, "_surely_same", lambda x, y: False)
        plain = diff(a, b)
    assert repr(shortcut) == repr(plain)


def test_an_unchanged_nan_is_no_edit() -> None:
    assert diff({"a": math.nan, "b": [math.nan]}, {"a": float("nan"), "b": [math.nan]}) == []
    assert diff({"a": math.nan}, {"a": 1.0})
