"""Each TensorFusion pod's share of its GPUs against the step's (docs/verify.md, "Shares").

The webhook writes the share it admitted a pod with back onto the pod, as
annotations: ``tflops-request/limit`` (or ``compute-percent-request/limit``),
``vram-request/limit`` and ``isolation`` (NexusGPU/tensor-fusion
internal/utils/compose.go:185-218), the template's values after its defaults
(internal/webhook/v1/tf_parser.go:501-566). So a pod's annotations say which step
made it: a whole card (``isolation: shared``, the takeover's) or a share (the
rightsize's, per workload where the policy gives per-workload values). The step's
share is the plan's request for the workload, from the same simulation ``plan`` runs.

A pod at another share than the step's is a wait while its workload still rolls (a
pod of an old ReplicaSet, or fewer pods at the step's share than the step runs) and
a stop once the rollout is done: the pods the step made carry another share.
Under ``tensor-fusion.ai/autoscale`` the operator stamps its own recommendation at
admission (internal/webhook/v1/pod_webhook.go:349-392), so no share is expected there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tfpolicy.admission.keys import (
    ISOLATION,
    PERCENT_LIMIT,
    PERCENT_REQUEST,
    TFLOPS_LIMIT,
    TFLOPS_REQUEST,
    VRAM_LIMIT,
    VRAM_REQUEST,
    key,
)
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import QuantityError, milli
from tfpolicy.inventory.fields import tflops_of, vram_of
from tfpolicy.records import Record
from tfpolicy.scheduler import Isolation, PodRequest

AUTOSCALE = key("autoscale")
UNREADABLE = -1  # an annotation that is no quantity: equal to no share
Pair = tuple[int, int]  # request, limit


class Share(Record):
    """What a pod holds of each of its GPUs: TFLOPS in milli, percent in milli, VRAM MiB."""

    isolation: str
    tflops: Pair = (0, 0)
    percent: Pair = (0, 0)
    vram: Pair = (0, 0)

    @property
    def whole(self) -> bool:
        return self.isolation == "shared"


def pod_share(annotations: Mapping[str, Any]) -> Share:
    """The share the webhook wrote on a pod (compose.go:185-218); absent values are 0."""
    return Share(str(annotations.get(ISOLATION) or "soft"),
                 _pair(annotations, TFLOPS_REQUEST, TFLOPS_LIMIT, _tflops),
                 _pair(annotations, PERCENT_REQUEST, PERCENT_LIMIT, _milli),
                 _pair(annotations, VRAM_REQUEST, VRAM_LIMIT, _vram))


def planned_share(request: PodRequest | None, template_notes: Mapping[str, Any]) -> Share | None:
    """The share the step gives each pod; None where no share is expected (no request,
    partitions, whose template decides, or the operator's autoscaler)."""
    if request is None or request.isolation is Isolation.PARTITIONED:
        return None
    if str(template_notes.get(AUTOSCALE, "")).lower() == "true":
        return None
    return Share(request.isolation.name.lower(), (request.tflops_request, request.tflops_limit),
                 (request.percent_request, request.percent_limit),
                 (request.vram_request, request.vram_limit))


def same_share(seen: Share, want: Share) -> bool:
    """A whole card is a whole card whatever else the pod says (a shared pod's TFLOPS and
    VRAM are ignored by the allocator); TFLOPS win over a percent, as the webhook keeps
    only one of them (tf_parser.go:563-566)."""
    if want.whole or seen.whole:
        return want.whole and seen.whole
    compute = (seen.tflops == want.tflops) if any(want.tflops) else (seen.percent == want.percent)
    return seen.isolation == want.isolation and compute and seen.vram == want.vram


def said(share: Share) -> str:
    """``a whole card (isolation shared)``, ``30/60 TFLOPS, 8Gi/16Gi VRAM (soft)``."""
    if share.whole:
        return "a whole card (isolation shared)"
    compute = (f"{_number(share.tflops[0])}/{_number(share.tflops[1])} TFLOPS"
               if any(share.tflops) or not any(share.percent) else
               f"{_number(share.percent[0])}/{_number(share.percent[1])} % compute")
    return (f"{compute}, {vram_said(share.vram[0])}/{vram_said(share.vram[1])} VRAM "
            f"({share.isolation})")


def vram_said(mib: int) -> str:
    if mib == UNREADABLE:
        return "?"
    if mib and mib % 1024 == 0:
        return f"{mib // 1024}Gi"
    return f"{mib}Mi"


def _number(value: int) -> str:
    if value == UNREADABLE:
        return "?"
    whole, rest = divmod(value, 1000)
    return f"{whole}" if not rest else f"{whole}.{rest:03d}".rstrip("0")


def _pair(notes: Mapping[str, Any], request: str, limit: str,
          parse: Callable[[str], int]) -> Pair:
    return (parse(str(notes[request])) if request in notes else 0,
            parse(str(notes[limit])) if limit in notes else 0)


def _tflops(text: str) -> int:
    try:
        return tflops_of(text, "")
    except TfpolicyError:
        return UNREADABLE


def _vram(text: str) -> int:
    try:
        return vram_of(text, "")
    except TfpolicyError:
        return UNREADABLE


def _milli(text: str) -> int:
    try:
        return milli(text)
    except (QuantityError, ValueError):
        return UNREADABLE
