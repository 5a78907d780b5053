"""Scheduler records: the inventory (pools, nodes, GPUs) and pod requests.

Integer units everywhere (upstream keeps Quantities, NexusGPU/tensor-fusion
api/v1/gpu_types.go:35; we keep exact integers so scores and sums never drift):

* TFLOPS in milli-TFLOPS (``312 TFLOPS`` → ``312000``);
* VRAM in MiB (``GPU.status.capacity.vram`` is written as ``<MiB>Mi``,
  pkg/hypervisor/backend/kubernetes/kubernetes_backend.go:352);
* compute percent in milli-percent (``"25"`` → ``25000``, ``"12.5"`` → ``12500``);
* cost in micro-USD per hour (``$1.89/h`` → ``1890000``).
"""

from __future__ import annotations

from enum import Enum, IntEnum

from tfpolicy.records import Record

DEFAULT_MAX_WORKERS_PER_NODE = 256  # Helm `maxWorkerPerNode`, values.yaml:937


class Isolation(IntEnum):
    """`tensor-fusion.ai/isolation` (NexusGPU/tensor-fusion api/v1/workloadprofile_types.go:151).

    `partitioned` is never placed: the Dynamic policy rejects it outright
    (`gpuallocator.go:642-644`), and partition templates are not simulated.
    """

    SHARED = 0
    SOFT = 1
    HARD = 2
    PARTITIONED = 3


class Placement(Enum):
    """`SchedulingConfigTemplate.spec.placement.mode` (api/v1/schedulingconfigtemplate_types.go:68;
    scoring: internal/gpuallocator/strategy_default.go:88)."""

    NODE_COMPACT_GPU_LOW_LOAD = "NodeCompactGPULowLoad"
    COMPACT_FIRST = "CompactFirst"
    LOW_LOAD_FIRST = "LowLoadFirst"


class IsolationPolicy(Enum):
    """Isolation policy (api/v1/gpu_types.go:48): the scheduler's, and what a GPU advertises.

    Upstream it is scheduler-wide (Helm `controller.isolationModePolicy`, default
    `dynamic`, `values.yaml:33`; `gpuallocator.go:333-352`); the node hypervisor
    advertises it on every `GPU.status.isolationPolicy`.
    """

    DYNAMIC = "Dynamic"
    STATIC = "Static"


class Phase(Enum):
    """`GPU.status.phase` (api/v1/gpu_types.go:241); only Running GPUs are schedulable
    (internal/gpuallocator/gpuallocator.go:369)."""

    PENDING = "Pending"
    PROVISIONING = "Provisioning"
    RUNNING = "Running"
    UNKNOWN = "Unknown"
    DESTROYING = "Destroying"
    MIGRATING = "Migrating"


class PodKind(Enum):
    """Who places the pod: the TensorFusion allocator or the native device plugin."""

    TENSOR_FUSION = "tensor-fusion"
    DEVICE_PLUGIN = "device-plugin"


USED_BY_TENSOR_FUSION = "tensor-fusion"  # `GPU.status.usedBy`: gpu_types.go:161
USED_BY_DEVICE_PLUGIN = "nvidia-device-plugin"


class SchedulerSettings(Record):
    """What the operator's configuration changes in scheduling; defaults = Helm chart.

    * ``isolation_policy``: Helm `controller.isolationModePolicy: dynamic`
      (`charts/tensor-fusion/values.yaml:33`);
    * ``progressive_migration``: Helm `controller.nvidiaOperatorProgressiveMigration:
      false` (`values.yaml:28`); when on, device-plugin pods go through the
      TensorFusion scheduler, which keeps them to GPU nodes with no TensorFusion
      worker (`gpuresources.go:164-173`, `gpuallocator.go:1992-2007`);
    * ``vram_weight`` / ``tflops_weight``: `GPUResourcesFit` args `vramWeight: 0.7`,
      `tflopsWeight: 0.3` (`values.yaml:937-939`), here in thousandths;
    * ``max_workers_per_node``: the same args' `maxWorkerPerNode` (256); None
      leaves each pool's own value (which defaults to the chart's).
    """

    isolation_policy: IsolationPolicy = IsolationPolicy.DYNAMIC
    progressive_migration: bool = False
    vram_weight: int = 700
    tflops_weight: int = 300
    max_workers_per_node: int | None = None


DEFAULT_SETTINGS = SchedulerSettings()


class GPU(Record):
    """One `GPU` object. ``pool`` is None for GPUs outside every pool.

    ``used_by`` is the static `status.usedBy`; a non-TensorFusion value keeps the
    TensorFusion allocator away (internal/gpuallocator/filter/phase_filter.go:31) but
    not device-plugin pods.
    ``external_*`` are requests already committed by allocations outside the
    simulation (`capacity − available` in a live inventory).
    ``isolation_conflict`` is `status.dynamicIsolationConflict`: under the
    Dynamic policy such a GPU takes no pod (`gpuallocator.go:722-724`);
    ``active_isolation`` is `status.activeIsolationMode`, the mode the external
    allocations locked it to; ``index`` is `status.index`, what `gpu-indices` match.
    ``isolations`` are the modes the GPU's `tensor-fusion.ai/virtualization-capabilities`
    annotation says it can do; None when it has no such metadata, which upstream
    reads as "any mode" (`filter/gpu_isolation_mode_filter.go:56-76`).
    ``partitions`` counts `status.allocatedPartitions` entries: a shared pod needs
    none (`filter/shared_whole_gpu_filter.go:28-30`).
    """

    name: str
    node: str
    pool: str | None
    model: str
    vendor: str
    tflops: int
    vram: int
    phase: Phase = Phase.RUNNING
    used_by: str = USED_BY_TENSOR_FUSION
    isolation_mode: Isolation | None = None
    cost: int = 0
    external_tflops: int = 0
    external_vram: int = 0
    isolation_conflict: bool = False
    active_isolation: Isolation | None = None
    index: int | None = None
    isolations: frozenset[Isolation] | None = None
    partitions: int = 0


class Node(Record):
    """A GPU node; RAM and disk feed the pool's VRAM host expansion
    (internal/gpuallocator/node_capacity.go:185-192)."""

    name: str
    gpus: tuple[str, ...]
    cost: int = 0
    ram: int = 0
    disk: int = 0


class Pool(Record):
    """A `GPUPool` with the settings the allocator and the reports need.

    ``tflops_oversell`` is a percentage (500 = ×5); None means the pool has no
    oversubscription config, so virtual capacity = physical (api/v1/gpupool_types.go:61).
    ``isolation_policy`` is what the pool's GPUs advertise; None (the usual
    case) means the scheduler's own, as a hypervisor of the same release does.
    """

    name: str
    placement: Placement = Placement.NODE_COMPACT_GPU_LOW_LOAD
    isolation_policy: IsolationPolicy | None = None
    tflops_oversell: int | None = None
    vram_expand_to_host_mem: int = 0
    vram_expand_to_host_disk: int = 0
    max_workers_per_node: int = DEFAULT_MAX_WORKERS_PER_NODE


class Inventory(Record):
    """Pools, nodes and GPUs, each sorted by name (GPUs by node, then name);
    ``settings`` when the inventory file states the operator's configuration."""

    pools: tuple[Pool, ...]
    nodes: tuple[Node, ...]
    gpus: tuple[GPU, ...]
    default_pool: str | None = None
    settings: SchedulerSettings | None = None

    @staticmethod
    def build(
        pools: list[Pool], gpus: list[GPU], nodes: list[Node] | None = None,
        default_pool: str | None = None, settings: SchedulerSettings | None = None,
    ) -> Inventory:
        """Sort everything and derive the nodes' GPU lists from ``gpus``."""
        ordered = sorted(gpus, key=lambda g: (g.node, g.name))
        extra = {n.name: n for n in nodes or []}
        by_node: dict[str, list[str]] = {name: [] for name in extra}
        for gpu in ordered:
            by_node.setdefault(gpu.node, []).append(gpu.name)
        built = [
            Node(name, tuple(names), *_node_extras(extra.get(name)))
            for name, names in sorted(by_node.items())
        ]
        return Inventory(tuple(sorted(pools, key=lambda p: p.name)), tuple(built),
                         tuple(ordered), default_pool, settings)


def _node_extras(node: Node | None) -> tuple[int, int, int]:
    return (node.cost, node.ram, node.disk) if node else (0, 0, 0)


PodKey = tuple[str, str]  # (namespace, name)


class PodRequest(Record):
    """What one pod asks the allocator for, per GPU (internal/utils/resource.go:132).

    A TensorFusion pod gives TFLOPS or compute percent (TFLOPS wins, as the
    webhook clears the percent), VRAM, isolation, count. A device-plugin pod
    (``kind=DEVICE_PLUGIN``) takes ``count`` whole free GPUs; only the model and
    vendor filters apply to it. ``pool`` None means the inventory's default pool.
    ``gpu_indices`` (`tensor-fusion.ai/gpu-indices`) limits it to GPUs of those
    `status.index` values (`filter/gpu_index_filter.go`). ``node`` binds it to one
    node, as the DaemonSet controller's node affinity does (`daemon/util`,
    `ReplaceDaemonSetPodNodeNameNodeAffinity`): every other node is filtered out.
    """

    name: str
    namespace: str = "default"
    workload: str = ""
    kind: PodKind = PodKind.TENSOR_FUSION
    pool: str | None = None
    count: int = 1
    tflops_request: int = 0
    tflops_limit: int = 0
    percent_request: int = 0
    percent_limit: int = 0
    vram_request: int = 0
    vram_limit: int = 0
    isolation: Isolation = Isolation.SOFT
    gpu_model: str | None = None
    vendor: str | None = None
    qos: str = "medium"
    gpu_indices: tuple[int, ...] = ()
    node: str | None = None

    @property
    def key(self) -> PodKey:
        return (self.namespace, self.name)
