"""What a plan reports: per step, the fit proof or the first misfit; the end, GPUs and cost."""

from __future__ import annotations

from enum import Enum

from tfpolicy.records import Record
from tfpolicy.scheduler import Consolidation, GpuLimits, PoolUsage, Unschedulable, Usage


class Status(Enum):
    FITS = "fits"
    DOES_NOT_FIT = "does-not-fit"
    NOT_RUN = "not-run"  # an earlier step did not fit: the plan stops there


class Misfit(Record):
    """A pod that does not fit (with the FitError-like diagnosis) or that the webhook rejects."""

    workload: str
    pod: str
    message: str
    diagnosis: Unschedulable | None = None
    old_running: int = 0
    new_running: int = 0


class PodCounts(Record):
    tensor_fusion: int = 0
    device_plugin: int = 0
    no_gpu: int = 0


class WorkloadUse(Record):
    """What one workload's placed pods hold after a step (the HTML's table per workload)."""

    workload: str
    tensor_fusion: int  # TensorFusion pods placed
    device_plugin: int  # device-plugin pods placed
    whole_gpus: int  # GPUs held whole: device-plugin and shared pods
    tflops: int  # milli-TFLOPS requested by its fractional pods, all GPUs summed
    vram: int  # MiB requested by its fractional pods
    nodes: tuple[str, ...]


class Moved(Record):
    """A step's workloads, whole objects: how many run a TensorFusion pod; and, where a
    canary rung moves uncapped kinds whole, which of those it moves and which wait."""

    tensor_fusion: int
    total: int
    whole: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()


class StepReport(Record):
    number: int
    name: str
    stage: str
    rung: str
    status: Status
    rolled: tuple[str, ...] = ()  # workloads whose pods are replaced in this step
    pods: PodCounts = PodCounts()
    unschedulable: tuple[Misfit, ...] = ()
    usage: Usage | None = None  # after the step
    nodes_in_use: int = 0
    pools: tuple[PoolUsage, ...] = ()
    oversubscribed: tuple[GpuLimits, ...] = ()
    warnings: tuple[str, ...] = ()
    policies: tuple[dict[str, object], ...] = ()  # the step's MigrationPolicy documents
    workloads: tuple[WorkloadUse, ...] = ()  # per workload, what its placed pods hold
    moved: Moved | None = None  # said only where a rung moves workloads whole

    @property
    def fits(self) -> bool:
        return self.status is Status.FITS


class Summary(Record):
    """GPUs and nodes in use (any GPU not idle), and their cost in micro-USD per hour."""

    gpus_before: int
    gpus_after: int
    nodes_before: int
    nodes_after: int
    cost_before: int
    cost_after: int
    gpus_total: int
    nodes_total: int
    # GPU requests the manifests hold that no step migrates, by rule (their GPUs stay with
    # the device plugin in every count above, so none of them is ever counted as freed)
    not_migrated: tuple[tuple[str, int], ...] = ()

    @property
    def gpus_freed(self) -> int:
        return self.gpus_before - self.gpus_after

    @property
    def nodes_freed(self) -> int:
        return self.nodes_before - self.nodes_after


class Plan(Record):
    start: StepReport
    steps: tuple[StepReport, ...]
    summary: Summary  # as the steps left the cluster, before consolidation
    consolidation: Consolidation | None = None  # None: skipped, or a step does not fit
    # Per node, its GPUs' users as letters (d device plugin, t TensorFusion, i idle):
    # as the manifests are, and as the plan leaves the cluster (after consolidation).
    map_before: tuple[tuple[str, str], ...] = ()
    map_after: tuple[tuple[str, str], ...] = ()

    @property
    def fits(self) -> bool:
        return self.start.fits and all(s.fits for s in self.steps)
