"""A hypothesis state machine on the ledger: reserve/release never over-allocate."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from sched_strategies import inventories, pods

from tfpolicy.scheduler import (
    Choice,
    FastAllocator,
    Inventory,
    Isolation,
    IsolationPolicy,
    Ledger,
    PodKind,
    PodRequest,
)


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.ledger: Ledger | None = None
        self.allocator: FastAllocator | None = None
        self.held: list[PodRequest] = []
        self.counter = 0

    @precondition(lambda self: self.ledger is None)
    @rule(inventory=inventories())
    def start(self, inventory: Inventory) -> None:
        self.ledger = Ledger(inventory)
        self.allocator = FastAllocator(self.ledger)

    @precondition(lambda self: self.ledger is not None)
    @rule(data=st.data())
    def reserve(self, data: st.DataObject) -> None:
        assert self.ledger is not None and self.allocator is not None
        self.counter += 1
        pod = data.draw(pods(f"p{self.counter}"))
        choice = self.allocator.choose(pod)
        if not isinstance(choice, Choice):
            return
        whole = pod.kind is PodKind.DEVICE_PLUGIN or pod.isolation is Isolation.SHARED
        if whole:  # shared and device-plugin pods only ever get completely idle GPUs
            assert all(self.ledger.gpus[g].idle for g in choice.gpus)
        self._check_configuration(pod, choice)
        self.ledger.reserve(pod, choice.gpus)
        if pod.kind is PodKind.TENSOR_FUSION and pod.isolation is Isolation.SHARED:
            assert all((self.ledger.gpus[g].avail_tflops, self.ledger.gpus[g].avail_vram)
                       == (0, 0) for g in choice.gpus)
        self.held.append(pod)

    @precondition(lambda self: bool(self.held))
    @rule(data=st.data())
    def release_restores(self, data: st.DataObject) -> None:
        assert self.ledger is not None
        pod = self.held.pop(data.draw(st.integers(0, len(self.held) - 1)))
        alloc = self.ledger.allocation(pod.key)
        assert alloc is not None
        before = self._snapshot(alloc.gpus)
        self.ledger.release(pod.key)
        self.ledger.reserve(pod, alloc.gpus)  # release then reserve again: same state
        assert self._snapshot(alloc.gpus) == before
        self.ledger.release(pod.key)
        assert self.ledger.allocation(pod.key) is None

    def _check_configuration(self, pod: PodRequest, choice: Choice) -> None:
        """What the operator's configuration forbids never happens (§11 rows 8, 9)."""
        assert self.ledger is not None
        config = self.ledger.settings
        if pod.kind is PodKind.DEVICE_PLUGIN:
            if config.progressive_migration:
                assert self.ledger.workers(choice.node) == 0
            return
        assert pod.isolation is not Isolation.PARTITIONED
        for state in (self.ledger.gpus[g] for g in choice.gpus):
            assert state.policy is config.isolation_policy
            if config.isolation_policy is IsolationPolicy.DYNAMIC:
                assert state.active in (None, pod.isolation)

    def _snapshot(self, gpus: tuple[str, ...]) -> list[tuple[int, int, int, int]]:
        assert self.ledger is not None
        return [(s.avail_tflops, s.avail_vram, s.limit_tflops, s.limit_vram)
                for s in (self.ledger.gpus[g] for g in gpus)]

    @invariant()
    def never_over_allocated(self) -> None:
        if self.ledger is None:
            return
        for state in self.ledger.gpus.values():
            assert 0 <= state.avail_tflops <= state.gpu.tflops
            assert 0 <= state.avail_vram <= state.gpu.vram
            assert not (state.dp_pod and state.tf_pods)

    @invariant()
    def available_is_capacity_minus_requests(self) -> None:
        if self.ledger is None:
            return
        used: dict[str, list[int]] = {}
        for alloc in self.ledger.allocations():
            if alloc.pod.kind is PodKind.DEVICE_PLUGIN:
                continue
            for i, g in enumerate(alloc.gpus):
                total = used.setdefault(g, [0, 0])
                total[0] += alloc.tflops[i]
                total[1] += alloc.vram[i]
        for name, state in self.ledger.gpus.items():
            tflops, vram = used.get(name, [0, 0])
            assert state.gpu.tflops - state.avail_tflops == tflops + state.gpu.external_tflops
            assert state.gpu.vram - state.avail_vram == vram + state.gpu.external_vram


LedgerMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=30,
                                           deadline=None)
TestLedger = LedgerMachine.TestCase
