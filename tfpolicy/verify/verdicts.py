"""What ``verify`` reports: a verdict per workload, per GPU and for the step."""

from __future__ import annotations

from enum import IntEnum

from tfpolicy.gates import GateResult
from tfpolicy.records import Record


class Verdict(IntEnum):
    """Ordered: the step's verdict is the worst of its parts."""

    READY = 0  # the step took effect: go on with the next one
    WAIT = 1  # the rollout is still under way: verify again later
    STOP = 2  # something went wrong: roll back

    @property
    def word(self) -> str:
        return self.name.lower()


class Problem(Record):
    """One thing the cluster shows that the plan did not expect."""

    verdict: Verdict
    subject: str  # a pod, a ReplicaSet, a GPU, or the workload itself
    message: str


class PodLine(Record):
    """One pod of a workload as the cluster shows it."""

    name: str
    tensor_fusion: bool
    status: str  # the phase, a stuck container's reason, or Terminating
    gpus: tuple[str, ...]  # the scheduler's gpu-ids


class ReplicaSetLine(Record):
    """One revision of a Deployment or Rollout (see verify.revisions)."""

    name: str
    revision: int
    replicas: int
    role: str  # new / old; a Rollout in the snapshot: stable / canary / old


class WorkloadResult(Record):
    workload: str  # the plan's unit key, Kind/namespace/name[/template]
    expected_tf: int
    expected_native: int
    seen_tf: int
    seen_native: int
    problems: tuple[Problem, ...] = ()
    pods: tuple[PodLine, ...] = ()
    replicasets: tuple[ReplicaSetLine, ...] = ()
    vram_limit: int = 0  # MiB per GPU the step's vram-limit gives each TensorFusion pod

    @property
    def verdict(self) -> Verdict:
        return max((p.verdict for p in self.problems), default=Verdict.READY)


class GpuResult(Record):
    """One GPU: what it reports available, what the plan's requests leave (milli-TFLOPS, MiB)."""

    name: str
    node: str
    tflops: int
    vram: int
    expected_tflops: int
    expected_vram: int
    pods: tuple[str, ...]
    problem: Problem | None = None
    partitions: tuple[str, ...] = ()  # "namespace/pod: templateId", as the GPU reports them
    capacity_tflops: int = 0
    capacity_vram: int = 0


class Origin(Record):
    """Where the snapshot comes from, and when, by its own objects (never the clock)."""

    source: str = ""  # the snapshot files, or the kubectl context of --live
    latest: str = ""  # the snapshot's time: the latest its objects carry, bounded ('' none)
    pools: tuple[str, ...] = ()  # the GPUPools it holds
    nodes: int = 0  # the GPUNodes it holds
    outliers: tuple[str, ...] = ()  # object times set aside (tfpolicy.verify.clock)
    rule: str = ""  # why they were set aside


class Shows(Record):
    """The step the cluster's pod counts match better than the step asked
    (:mod:`tfpolicy.verify.closest`)."""

    number: int  # 0: before the first step
    name: str
    off: int  # pods that differ from this step's expectation
    asked_off: int  # pods that differ from the asked step's


class Savings(Record):
    """What a step that frees capacity leaves free in the cluster, against the plan's own
    figures for the step (:mod:`tfpolicy.verify.savings`)."""

    gpus_free: int  # GPUs no pod holds, by the snapshot's GPU objects and pods' gpu-ids
    nodes_free: int  # GPU nodes all of whose GPUs are free
    planned_gpus_free: int  # the plan's idle GPUs after the step
    planned_nodes_free: int  # the plan's GPU nodes not in use after the step
    warning: str = ""  # measured far below the plan: pods not packed as planned


class Report(Record):
    step: str  # e.g. "04 takeover-100"
    rollback: str  # the policy that undoes the step
    workloads: tuple[WorkloadResult, ...]
    gpus: tuple[GpuResult, ...]
    cluster: tuple[Problem, ...] = ()  # problems of the cluster as a whole
    origin: Origin = Origin()
    gates: tuple[GateResult, ...] = ()  # the rung's gates (docs/gates.md); () when none run
    shows: Shows | None = None  # the step the cluster matches better than the one asked
    savings: Savings | None = None  # None outside steps that free capacity (rightsize)

    @property
    def verdict(self) -> Verdict:
        """The worst part: what the cluster shows, then the gates (a failing gate stops, a
        gate short of data waits)."""
        gates = [Verdict(int(g.outcome)) for g in self.gates]
        return max([self.cluster_verdict, *gates])

    @property
    def cluster_verdict(self) -> Verdict:
        """What Kubernetes and the operator show, the gates aside."""
        parts = [w.verdict for w in self.workloads] + [p.verdict for p in self.cluster]
        parts += [g.problem.verdict for g in self.gpus if g.problem is not None]
        return max(parts, default=Verdict.READY)

    @property
    def gates_verdict(self) -> Verdict:
        return max((Verdict(int(g.outcome)) for g in self.gates), default=Verdict.READY)
