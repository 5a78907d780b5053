"""What admission returns: the decision, the admitted Pod, the changes, the request."""

from __future__ import annotations

from enum import Enum
from typing import Any

from tfpolicy.records import Record


class Decision(Enum):
    """What the webhook does with one pod (NexusGPU/tensor-fusion pod_webhook.go:84, Handle)."""

    UNTOUCHED = "untouched"  # not a GPU pod, or a GPU pod outside auto-migration
    MIGRATED = "migrated"  # native GPU pod taken over by auto-migration
    TENSOR_FUSION = "tensor-fusion"  # pod labelled tensor-fusion.ai/enabled=true
    OVER_CAP = "over-cap"  # enabled-replicas reached: admitted unmutated
    REJECTED = "rejected"  # the webhook errors; failurePolicy Fail rejects the CREATE


class ChangeKind(Enum):
    ADD = "add"
    CHANGE = "change"
    REMOVE = "remove"


class Change(Record):
    """One difference between the pod as submitted and as admitted."""

    kind: ChangeKind
    path: str  # e.g. metadata.annotations["tensor-fusion.ai/gpu-count"]
    old: Any = None
    new: Any = None

    def __str__(self) -> str:
        if self.kind is ChangeKind.ADD:
            return f"add {self.path} = {self.new!r}"
        if self.kind is ChangeKind.REMOVE:
            return f"remove {self.path} (was {self.old!r})"
        return f"change {self.path}: {self.old!r} -> {self.new!r}"


class AllocationRequest(Record):
    """What the scheduler is asked for (internal/utils/resource.go:132), in plain integers, per GPU.

    TFLOPS in milli-TFLOPS, compute percent in milli-percent (``12.5`` stays
    exact: ``internal/utils/resource.go:66-69``) and VRAM in MiB, each rounded
    up; zero means "not set". ``unreadable`` names the side (``request`` /
    ``limit``) whose annotations the scheduler cannot read, so reserves
    nothing for (internal/utils/config.go:201-205, resource.go:134-141).
    """

    pool: str
    namespace: str
    workload: str
    gpu_count: int
    tflops_request: int
    tflops_limit: int
    compute_milli_percent_request: int
    compute_milli_percent_limit: int
    vram_request: int
    vram_limit: int
    isolation: str
    qos: str
    gpu_model: str = ""
    vendor: str = ""
    gpu_indices: tuple[int, ...] = ()
    partition_id: str = ""
    is_local: bool = True
    unreadable: tuple[str, ...] = ()


class Admission(Record):
    """The outcome of admitting one pod template.

    ``pod`` is the Pod as admitted (``None`` when rejected); ``error`` is the
    message the webhook rejects it with (empty otherwise); ``reason`` says
    why in words; ``notes`` list what the simulation could not reproduce.
    """

    decision: Decision
    pod: dict[str, Any] | None
    changes: tuple[Change, ...] = ()
    allocation: AllocationRequest | None = None
    error: str = ""
    reason: str = ""
    notes: tuple[str, ...] = ()

    @property
    def rejected(self) -> bool:
        return self.decision is Decision.REJECTED


class Rejection(Exception):
    """Raised inside the simulation where the webhook answers HTTP 500."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
