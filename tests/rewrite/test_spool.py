"""The first pass's spool gives every item again, in order, whether it held them in memory
or moved them to a temporary file once they passed its bound."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tfpolicy.rewrite import spool
from tfpolicy.rewrite.spool import Spool


@given(st.lists(st.binary(max_size=40)), st.integers(min_value=0, max_value=200))
def test_every_item_comes_again_in_order_on_either_side_of_the_bound(
        items: list[bytes], bound: int) -> None:
    kept = spool.IN_MEMORY
    spool.IN_MEMORY = bound
    try:
        spooled = Spool(iter(items), len)
        first = list(spooled.first())
        assert first == items
        moved = spooled._file is not None
        assert moved == (sum(map(len, items)) > bound)
        assert list(spooled.again()) == items
    finally:
        spool.IN_MEMORY = kept


def test_the_rest_is_read_by_again_when_the_first_pass_stopped_early() -> None:
    items = [b"a" * 10, b"b" * 10, b"c" * 10]
    spooled = Spool(iter(items), len)
    assert next(spooled.first()) == items[0]
    assert list(spooled.again()) == items
