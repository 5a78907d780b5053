"""The records gates speak: who is measured (``Subject``), over which window, what is
asked of Prometheus (``Query``) and what each gate decided (``GateResult``)."""

from __future__ import annotations

from enum import IntEnum

from tfpolicy.records import Record

Points = tuple[tuple[int, float], ...]  # (seconds from the window's start, value)


class Outcome(IntEnum):
    """Ordered as verify's verdicts: the worst gate decides."""

    PASS = 0
    WAIT = 1
    FAIL = 2

    @property
    def word(self) -> str:
        return {0: "pass", 1: "wait", 2: "stop"}[int(self)]


class Pod(Record):
    """One running pod of a workload, as the snapshot shows it."""

    namespace: str
    name: str
    tensor_fusion: bool
    gpus: tuple[str, ...] = ()  # the GPU objects' names (lower-cased UUIDs) it holds
    restarts: int = 0  # its containers' restartCount, summed
    last_exit: str = ""  # the last terminated state's reason, e.g. OOMKilled
    vram_limit: int = 0  # MiB per GPU, from tensor-fusion.ai/vram-limit (0: none)
    preallocates: bool = False  # its framework reserves a memory pool up front
    policy_vram_limit: int = 0  # MiB per GPU the step's policy gives it (0: none known)
    preallocation: str = ""  # its framework's pool setting, "vLLM --gpu-memory-utilization 0.90"


class Subject(Record):
    """One workload the rung moved, its running pods and where its earlier pods were."""

    workload: str  # the plan's key, Kind/namespace/name[/template]
    namespace: str
    pods: tuple[Pod, ...]
    prefixes: tuple[str, ...] = ()  # name prefixes of its earlier pods (its ReplicaSets')
    started: int = 0  # Unix seconds the rung began for it: the time-shifted window ends there

    def side(self, tensor_fusion: bool) -> tuple[Pod, ...]:
        return tuple(p for p in self.pods if p.tensor_fusion == tensor_fusion)

    def earlier(self, pod: str) -> bool:
        """Whether a pod so named was this workload's before the rung."""
        mine = {p.name for p in self.pods}
        return pod in mine or any(pod.startswith(prefix) for prefix in self.prefixes)


class Window(Record):
    start: int
    end: int
    step: int

    @property
    def length(self) -> int:
        return self.end - self.start

    def before(self, when: int) -> Window:
        """The window of the same length that ends at ``when`` (a time-shifted baseline)."""
        return Window(when - self.length, when, self.step)


class Query(Record):
    """One range query; its key finds its answer in a metrics file."""

    expr: str
    window: Window

    @property
    def key(self) -> str:
        w = self.window
        return f"{w.start}:{w.end}:{w.step}:{self.expr}"


class GateResult(Record):
    gate: str
    workload: str
    outcome: Outcome
    message: str  # why, one line: the values, the bound, the pods
    bound: str = ""
    tensor_fusion: float | None = None
    baseline: float | None = None
    baseline_kind: str = ""  # which baseline: "native pods, same window", "time-shifted …"
    tf_pods: tuple[str, ...] = ()
    baseline_pods: tuple[str, ...] = ()
    samples: tuple[int, int] = (0, 0)  # found: TensorFusion side, baseline side
    tf_series: Points = ()
    baseline_series: Points = ()
    builtin: bool = False
    measured: bool = True  # False: a built-in gate without its data, which decides nothing

    @property
    def word(self) -> str:
        return self.outcome.word if self.measured else "unmeasured"
