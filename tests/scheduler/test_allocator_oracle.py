"""The fast allocator chooses exactly what the brute-force oracle chooses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sched_strategies import inventories, pods

from tfpolicy.scheduler.contract import Choice
from tfpolicy.scheduler.diagnosis import Unschedulable
from tfpolicy.scheduler.fast import FastAllocator
from tfpolicy.scheduler.ledger import Ledger
from tfpolicy.scheduler.model import Inventory
from tfpolicy.scheduler.oracle import OracleAllocator


@settings(max_examples=300, deadline=None)
@given(inventory=inventories(), data=st.data())
def test_fast_matches_oracle(inventory: Inventory, data: st.DataObject) -> None:
    ledger = Ledger(inventory)
    fast, oracle = FastAllocator(ledger), OracleAllocator(ledger)
    held: list[tuple[str, str]] = []
    for step in range(data.draw(st.integers(1, 40))):
        if held and data.draw(st.integers(0, 3)) == 0:
            ledger.release(held.pop(data.draw(st.integers(0, len(held) - 1))))
            continue
        pod = data.draw(pods(f"pod-{step}"))
        expected, got = oracle.choose(pod), fast.choose(pod)
        assert got == expected
        if isinstance(got, Choice):
            ledger.reserve(pod, got.gpus)
            held.append(pod.key)
        else:
            assert isinstance(got, Unschedulable)
