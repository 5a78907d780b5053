"""Upstream's allocator and scheduler-plugin tests, paraphrased as data.

Source: NexusGPU/tensor-fusion at 3e0a4901. Each case names the upstream file
and line of the test it restates; inputs and expectations are paraphrased,
no Go is copied. Units as in the upstream tests: TFLOPS and GiB (converted
to milli-TFLOPS and MiB by `test_upstream_allocator.py`).

A GPU is written ``G(name, node, cap=(TFLOPS, GiB), avail=(TFLOPS, GiB), ...)``;
``avail`` below ``cap`` is an allocation made before the case. Upstream GPUs
without a node are given a node of their own. Expectations:

* ``filter``: the GPUs the whole filter chain keeps (§5.2), sorted;
* ``nodes``: the nodes the plugin's PreFilter keeps (TensorFusion pods: nodes
  with candidates; device-plugin pods: progressive migration's node list);
* ``choice``: where both allocators (plugin path) place the pod, or None;
* ``select``: what `SelectGPUs` (Alloc / defrag path) picks, or None;
* ``scores``: the plugin's node scores;
* ``after``: each GPU's (TFLOPS, GiB) available at the end (after ``placed``,
  ``release`` and committing ``choice``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tfpolicy.scheduler import (
    Choice,
    Isolation,
    IsolationPolicy,
    Phase,
    Placement,
    PodKind,
    SchedulerSettings,
)

DYNAMIC = SchedulerSettings()
STATIC = SchedulerSettings(isolation_policy=IsolationPolicy.STATIC)
HALF = SchedulerSettings(isolation_policy=IsolationPolicy.STATIC, vram_weight=500,
                         tflops_weight=500)
PROGRESSIVE = SchedulerSettings(isolation_policy=IsolationPolicy.STATIC,
                                progressive_migration=True)


@dataclass(frozen=True)
class G:
    name: str
    node: str
    cap: tuple[float, float] = (100, 16)
    avail: tuple[float, float] | None = None
    pool: str | None = "p"
    phase: Phase = Phase.RUNNING
    model: str = "A100"
    vendor: str = "NVIDIA"
    mode: Isolation | None = None
    used_by: str = "tensor-fusion"
    conflict: bool = False
    index: int | None = None
    caps: frozenset[Isolation] | None = None  # virtualization-capabilities; None: no metadata
    partitions: int = 0  # status.allocatedPartitions entries


@dataclass(frozen=True)
class P:
    """A pod: per-GPU request (TFLOPS, GiB) or compute percent, count, isolation…"""

    name: str = "pod"
    tflops: float = 0
    vram: float = 0
    percent: float = 0
    count: int = 1
    isolation: Isolation = Isolation.SOFT
    pool: str = "p"
    model: str | None = None
    kind: PodKind = PodKind.TENSOR_FUSION
    indices: tuple[int, ...] = ()
    on: tuple[str, ...] = ()  # for placed pods: the GPUs upstream had it on


@dataclass(frozen=True)
class Case:
    source: str
    title: str
    gpus: tuple[G, ...]
    pod: P
    settings: SchedulerSettings = STATIC
    placement: Placement = Placement.NODE_COMPACT_GPU_LOW_LOAD
    max_workers: int = 256
    placed: tuple[P, ...] = ()
    release: bool = False  # release the placed pods before the checks
    filter: tuple[str, ...] | None = None
    nodes: tuple[str, ...] | None = None
    choice: Choice | str | None = "-"
    select: Choice | str | None = "-"
    scores: dict[str, int] = field(default_factory=dict)
    after: dict[str, tuple[float, float]] = field(default_factory=dict)
    xfail: str | None = None


# filter/filter_test.go:23-98 — four GPUs, no nodes; capacity = available
FILTER_GPUS = (
    G("gpu-1", "n1", (10, 40), model="A100", index=0),
    G("gpu-2", "n2", (5, 20), model="A100", index=1),
    G("gpu-3", "n3", (20, 80), model="H100", phase=Phase.PENDING, index=2),
    G("gpu-4", "n4", (3, 24), model="RTX4090", index=3),
)
# filter/filter_test.go:190-317 — SameNodeFilter: 2 + 2 + 1 GPUs, two without a node
SAME_NODE_GPUS = (
    G("gpu-1", "node-1", (10, 40)), G("gpu-2", "node-1", (10, 40)),
    G("gpu-3", "node-2", (10, 40)), G("gpu-4", "node-2", (10, 40)),
    G("gpu-5", "node-3", (10, 40)), G("gpu-6", "none-6", (10, 40)),
    G("gpu-7", "none-7", (10, 40)),
)
ALL_SEVEN = tuple(f"gpu-{i}" for i in range(1, 8))
# strategy_multi_gpu_test.go:19-150
MULTI_GPUS = (
    G("gpu-1-1", "node-1", (20, 80), (10, 40)), G("gpu-1-2", "node-1", (20, 80), (12, 42)),
    G("gpu-1-3", "node-1", (20, 80), (14, 44)),
    G("gpu-2-1", "node-2", (25, 100), (20, 80)), G("gpu-2-2", "node-2", (25, 100), (18, 75)),
    G("gpu-3-1", "node-3", (40, 120), (30, 100)),
)
# gpuallocator_suite_test.go:129-330 — pool test-pool (CompactFirst), gpu-3 in other-pool
SUITE_GPUS = (
    G("gpu-1", "node-1", (100, 16), model="NVIDIA A100"),
    G("gpu-2", "node-1", (100, 32), (80, 32), model="NVIDIA A100"),
    G("gpu-3", "node-2", (120, 24), pool="other", model="NVIDIA A100"),
    G("gpu-4", "node-3", (150, 48), phase=Phase.PENDING, model="NVIDIA H100"),
    G("gpu-5", "node-1", (100, 16), model="NVIDIA A100"),
    G("gpu-6", "node-1", (100, 16), model="NVIDIA A100"),
)
# scheduler/gpuresources/gpuresources_test.go:172-233, worker-1 at 145-166
PLUGIN_GPUS = (
    G("gpu-1", "node-a", (1000, 20)),
    G("gpu-2", "node-b", (1000, 20)), G("gpu-3", "node-b", (2000, 40)),
    G("gpu-4", "node-c", (2000, 40), used_by="nvidia-device-plugin"),
)
WORKER_1 = (P("worker-1", tflops=100, vram=2, on=("gpu-1",)),)
# shared_allocation_unit_test.go:14-19
SHARED_CAP = (100, 24)

FILTER = "internal/gpuallocator/filter/filter_test.go"
ISO = "internal/gpuallocator/filter/gpu_isolation_mode_filter_test.go"
MODEL = "internal/gpuallocator/filter/gpu_model_vendor_filter_test.go"
SHARED = "internal/gpuallocator/shared_allocation_unit_test.go"
MULTI = "internal/gpuallocator/strategy_multi_gpu_test.go"
ALLOC = "internal/gpuallocator/gpuallocator_test.go"
PLUGIN = "internal/scheduler/gpuresources/gpuresources_test.go"
# gpu_isolation_mode_filter_test.go:15-20: what the capability annotations allow
HARD_CAPS = frozenset({Isolation.HARD})
PARTITION_CAPS = frozenset({Isolation.PARTITIONED})

CASES: tuple[Case, ...] = (
    Case(f"{FILTER}:100", "phase filter keeps Running GPUs", FILTER_GPUS, P(),
         filter=("gpu-1", "gpu-2", "gpu-4")),
    Case(f"{FILTER}:122", "phase then resource filter", FILTER_GPUS, P(tflops=8, vram=30),
         filter=("gpu-1",)),
    Case(f"{FILTER}:138", "gpu-indices then resource filter", FILTER_GPUS,
         P(tflops=1, vram=1, indices=(2, 3)), filter=("gpu-3", "gpu-4"),
         xfail="a filter chain without the phase filter (upstream tests a bare registry; "
               "the simulated chain always drops the Pending gpu-3)"),
    Case(f"{FILTER}:322", "same-node, count 1: every GPU", SAME_NODE_GPUS, P(count=1),
         filter=ALL_SEVEN),
    Case(f"{FILTER}:328", "same-node, count 2: nodes with 2 GPUs", SAME_NODE_GPUS, P(count=2),
         filter=("gpu-1", "gpu-2", "gpu-3", "gpu-4")),
    Case(f"{FILTER}:334", "same-node, count 3: none", SAME_NODE_GPUS, P(count=3),
         filter=(), choice=None),
    Case(f"{FILTER}:340", "same-node, count 0: every GPU", SAME_NODE_GPUS, P(count=0),
         filter=ALL_SEVEN),
    Case(f"{MODEL}:25", "model filter keeps A100", (G("a", "n1", (100, 40)),
                                                     G("h", "n2", (200, 80), model="H100")),
         P(model="A100"), filter=("a",)),
    Case(f"{MODEL}:51", "no model asked: no model filter", (G("a", "n1", (100, 40)),), P(),
         filter=("a",)),
    Case(f"{MODEL}:68", "unknown model: nothing", (G("a", "n1", (100, 40)),),
         P(model="NonExistentModel"), filter=(), choice=None),
    # :15-20: one GPU can do hard isolation, one only partitioning; :45 the third,
    # hard-capable but in soft mode, is dropped by its mode
    Case(f"{ISO}:14", "isolation filter honours capability metadata",
         (G("hard-ok", "n1", mode=Isolation.HARD, caps=HARD_CAPS),
          G("hard-no", "n2", mode=Isolation.HARD, caps=PARTITION_CAPS),
          G("soft", "n3", mode=Isolation.SOFT, caps=HARD_CAPS)), P(isolation=Isolation.HARD),
         filter=("hard-ok",), choice=Choice("n1", ("hard-ok",))),
    Case(f"{ISO}:59", "no capability metadata: legacy behaviour",
         (G("legacy", "n1", mode=Isolation.SOFT),), P(), filter=("legacy",)),
    # :80: the annotation is an object with every capability false
    Case(f"{ISO}:79", "capabilities explicitly unsupported",
         (G("hard", "n1", mode=Isolation.HARD, caps=frozenset()),), P(isolation=Isolation.HARD),
         filter=(), choice=None),
    Case(f"{ISO}:105", "shared accepts any GPU mode",
         tuple(G(m.name.lower(), f"n{m.value}", mode=m) for m in Isolation),
         P(isolation=Isolation.SHARED), filter=("hard", "partitioned", "shared", "soft")),
    Case(f"{ISO}:123", "dynamic: idle or same active mode",
         (G("hard", "n1"), G("idle", "n2"), G("soft", "n3")), P(), settings=DYNAMIC,
         placed=(P("s", tflops=1, on=("soft",)),
                 P("h", tflops=1, isolation=Isolation.HARD, on=("hard",))),
         filter=("idle", "soft")),
    Case(f"{ISO}:123", "dynamic: a GPU in isolation conflict is dropped",
         (G("conflict", "n1", conflict=True), G("idle", "n2")), P(), settings=DYNAMIC,
         filter=("idle",)),
    Case(f"{ISO}:140", "shared takes only idle GPUs",
         (G("idle", "n1", SHARED_CAP), G("used", "n2", SHARED_CAP, (80, 20))),
         P(isolation=Isolation.SHARED), filter=("idle",)),
    # :147-150: available equals capacity, yet one partition is recorded
    Case(f"{ISO}:140", "shared skips GPUs with allocated partitions",
         (G("idle", "n1", SHARED_CAP), G("partitioned", "n2", SHARED_CAP, partitions=1)),
         P(isolation=Isolation.SHARED), filter=("idle",), choice=Choice("n1", ("idle",))),
    Case(f"{SHARED}:21", "shared consumes the whole GPU",
         (G("gpu-1", "node-1", SHARED_CAP, mode=Isolation.SOFT),),
         P(tflops=10, vram=2, isolation=Isolation.SHARED),
         choice=Choice("node-1", ("gpu-1",)), after={"gpu-1": (0, 0)}),
    Case(f"{SHARED}:21", "a shared GPU is exclusive",
         (G("gpu-1", "node-1", SHARED_CAP, mode=Isolation.SOFT),),
         P(tflops=10, vram=2, isolation=Isolation.SHARED),
         placed=(P("w", tflops=10, vram=2, isolation=Isolation.SHARED, on=("gpu-1",)),),
         choice=None, after={"gpu-1": (0, 0)}),
    Case(f"{SHARED}:40", "releasing a shared pod restores the whole GPU",
         (G("gpu-1", "node-1", SHARED_CAP, mode=Isolation.SHARED),),
         P(tflops=10, vram=2, isolation=Isolation.SHARED),
         placed=(P("w", tflops=10, vram=2, isolation=Isolation.SHARED, on=("gpu-1",)),),
         release=True, filter=("gpu-1",), after={"gpu-1": (100, 24)}),
    Case(f"{SHARED}:80", "shared simulation keeps only whole idle GPUs",
         (G("gpu-full", "node-1", SHARED_CAP, mode=Isolation.SOFT),
          G("gpu-partial", "node-1", SHARED_CAP, (90, 24), mode=Isolation.HARD)),
         P(tflops=10, vram=2, isolation=Isolation.SHARED), filter=("gpu-full",)),
    Case(f"{SHARED}:105", "preemption frees a shared victim's whole GPU",
         (G("victim", "node-1", SHARED_CAP, (0, 0), mode=Isolation.HARD),),
         P(tflops=10, vram=2, isolation=Isolation.SHARED), filter=("victim",),
         xfail="preemption is not simulated"),
    Case(f"{SHARED}:147", "dynamic preemption reuses only a same-mode GPU",
         (G("victim", "node-1", SHARED_CAP, (20, 4)),), P(tflops=90, vram=22),
         settings=DYNAMIC, filter=("victim",), xfail="preemption is not simulated"),
    Case(f"{SHARED}:179", "hard slices pack onto the used GPU (SelectGPUs)",
         (G("hard-used", "node-used", SHARED_CAP, (50, 12), mode=Isolation.HARD),
          G("hard-idle", "node-used", SHARED_CAP, mode=Isolation.HARD),
          G("shared-idle-a", "node-idle", SHARED_CAP, mode=Isolation.SHARED),
          G("shared-idle-b", "node-idle", SHARED_CAP, mode=Isolation.SHARED)),
         P(tflops=10, vram=2, isolation=Isolation.HARD), settings=HALF,
         placement=Placement.COMPACT_FIRST, select=Choice("node-used", ("hard-used",))),
    Case(f"{SHARED}:179", "shared prefers the used node's idle GPU (SelectGPUs)",
         (G("hard-used", "node-used", SHARED_CAP, (50, 12), mode=Isolation.HARD),
          G("hard-idle", "node-used", SHARED_CAP, mode=Isolation.HARD),
          G("shared-idle-a", "node-idle", SHARED_CAP, mode=Isolation.SHARED),
          G("shared-idle-b", "node-idle", SHARED_CAP, mode=Isolation.SHARED)),
         P(tflops=10, vram=2, isolation=Isolation.SHARED), settings=HALF,
         placement=Placement.COMPACT_FIRST, select=Choice("node-used", ("hard-idle",))),
    Case(f"{MULTI}:173", "LowLoadFirst, 2 GPUs: highest node sum, least used GPUs",
         MULTI_GPUS, P(count=2), settings=HALF, placement=Placement.LOW_LOAD_FIRST,
         select=Choice("node-1", ("gpu-1-3", "gpu-1-2"))),
    Case(f"{MULTI}:186", "LowLoadFirst, 3 GPUs", MULTI_GPUS, P(count=3), settings=HALF,
         placement=Placement.LOW_LOAD_FIRST,
         select=Choice("node-1", ("gpu-1-3", "gpu-1-2", "gpu-1-1"))),
    Case(f"{MULTI}:201", "LowLoadFirst, 4 GPUs: none", MULTI_GPUS, P(count=4), settings=HALF,
         placement=Placement.LOW_LOAD_FIRST, select=None, choice=None),
    Case(f"{MULTI}:218", "CompactFirst, 2 GPUs: most used GPUs", MULTI_GPUS, P(count=2),
         settings=HALF, placement=Placement.COMPACT_FIRST,
         select=Choice("node-1", ("gpu-1-1", "gpu-1-2"))),
    Case(f"{MULTI}:231", "CompactFirst, 3 GPUs", MULTI_GPUS, P(count=3), settings=HALF,
         placement=Placement.COMPACT_FIRST,
         select=Choice("node-1", ("gpu-1-1", "gpu-1-2", "gpu-1-3"))),
    Case(f"{MULTI}:246", "CompactFirst, 4 GPUs: none", MULTI_GPUS, P(count=4), settings=HALF,
         placement=Placement.COMPACT_FIRST, select=None, choice=None),
    Case(f"{ALLOC}:82", "Alloc one GPU: its available drops by the request", SUITE_GPUS,
         P(tflops=50, vram=8), placement=Placement.COMPACT_FIRST,
         placed=(P("a", tflops=50, vram=8, on=("gpu-1",)),), after={"gpu-1": (50, 8)}),
    Case(f"{ALLOC}:120", "Alloc two GPUs on one node", SUITE_GPUS, P(tflops=20, vram=4, count=2),
         placement=Placement.COMPACT_FIRST, select=Choice("node-1", ("gpu-2", "gpu-1"))),
    Case(f"{ALLOC}:137", "Alloc more GPUs than a node has", SUITE_GPUS,
         P(tflops=10, vram=2, count=10), placement=Placement.COMPACT_FIRST,
         select=None, choice=None),
    Case(f"{ALLOC}:147", "Alloc beyond every GPU's resources", SUITE_GPUS,
         P(tflops=200, vram=64), placement=Placement.COMPACT_FIRST, select=None, choice=None),
    Case(f"{ALLOC}:157", "Alloc in a pool that does not exist", SUITE_GPUS,
         P(tflops=10, vram=2, pool="nonexistent"), select=None, choice=None),
    Case(f"{ALLOC}:167", "Alloc by model", SUITE_GPUS, P(tflops=50, vram=8, model="NVIDIA A100"),
         placement=Placement.COMPACT_FIRST, select=Choice("node-1", ("gpu-2",))),
    Case(f"{ALLOC}:178", "Alloc by a model nobody has", SUITE_GPUS,
         P(tflops=50, vram=8, model="NonExistentModel"), select=None, choice=None),
    Case(f"{ALLOC}:185", "Dealloc restores the GPU", SUITE_GPUS, P(tflops=50, vram=8),
         placement=Placement.COMPACT_FIRST, placed=(P("a", tflops=50, vram=8, on=("gpu-1",)),),
         release=True, after={"gpu-1": (100, 16)}),
    Case(f"{PLUGIN}:332", "PreFilter, 1 GPU, room on two nodes", PLUGIN_GPUS,
         P(tflops=100, vram=10), settings=PROGRESSIVE, max_workers=3, placed=WORKER_1,
         nodes=("node-a", "node-b")),
    Case(f"{PLUGIN}:337", "PreFilter, 1 GPU of 2000 TFLOPS", PLUGIN_GPUS,
         P(tflops=2000, vram=10), settings=PROGRESSIVE, max_workers=3, placed=WORKER_1,
         nodes=("node-b",), choice=Choice("node-b", ("gpu-3",))),
    Case(f"{PLUGIN}:342", "PreFilter, 2 GPUs on node-b", PLUGIN_GPUS,
         P(tflops=100, vram=10, count=2), settings=PROGRESSIVE, max_workers=3,
         placed=WORKER_1, nodes=("node-b",), choice=Choice("node-b", ("gpu-2", "gpu-3"))),
    Case(f"{PLUGIN}:347", "PreFilter, not enough VRAM anywhere", PLUGIN_GPUS,
         P(tflops=2000, vram=80), settings=PROGRESSIVE, max_workers=3, placed=WORKER_1,
         nodes=(), choice=None),
    Case(f"{PLUGIN}:352", "PreFilter, 3 GPUs but at most 2 per node", PLUGIN_GPUS,
         P(tflops=100, vram=10, count=3), settings=PROGRESSIVE, max_workers=3,
         placed=WORKER_1, nodes=(), choice=None),
    Case(f"{PLUGIN}:380", "progressive migration, native pod of 1 GPU", PLUGIN_GPUS,
         P(kind=PodKind.DEVICE_PLUGIN), settings=PROGRESSIVE, placed=WORKER_1,
         nodes=("node-b", "node-c")),
    Case(f"{PLUGIN}:381", "progressive migration, native pod of 2 GPUs", PLUGIN_GPUS,
         P(kind=PodKind.DEVICE_PLUGIN, count=2), settings=PROGRESSIVE, placed=WORKER_1,
         nodes=("node-b", "node-c"), choice=Choice("node-b", ("gpu-2", "gpu-3"))),
    Case(f"{PLUGIN}:386", "Filter: node-a passes, node-c (device plugin) does not", PLUGIN_GPUS,
         P(tflops=100, vram=10), settings=PROGRESSIVE, max_workers=3, placed=WORKER_1,
         filter=("gpu-1", "gpu-2", "gpu-3")),
    Case(f"{PLUGIN}:413", "Score: node-a 10 (one worker), node-b 0", PLUGIN_GPUS,
         P(tflops=100, vram=10), settings=PROGRESSIVE, max_workers=3, placed=WORKER_1,
         scores={"node-a": 10, "node-b": 0}, choice=Choice("node-a", ("gpu-1",))),
    Case(f"{PLUGIN}:757", "compute-percent 10 % of 1000 TFLOPS reserves 100",
         (G("gpu-test-percent", "node-a", (1000, 20)),), P(),
         placed=(P("w", percent=10, vram=2, on=("gpu-test-percent",)),),
         after={"gpu-test-percent": (900, 18)}),
    Case(f"{PLUGIN}:839", "TFLOPS and compute-percent pods on one GPU",
         (G("gpu-test-mixed", "node-a", (2000, 40)),), P(),
         placed=(P("t", tflops=300, vram=5, on=("gpu-test-mixed",)),
                 P("c", percent=15, vram=3, on=("gpu-test-mixed",))),
         after={"gpu-test-mixed": (1400, 32)}),
    Case(f"{PLUGIN}:954", "compute-percent on GPUs of different sizes",
         (G("gpu-mixed-1", "node-a", (1000, 20)), G("gpu-mixed-2", "node-a", (2000, 40))), P(),
         placed=(P("w1", percent=20, vram=4, on=("gpu-mixed-1",)),
                 P("w2", percent=10, vram=6, on=("gpu-mixed-2",))),
         after={"gpu-mixed-1": (800, 16), "gpu-mixed-2": (1800, 34)}),
)
