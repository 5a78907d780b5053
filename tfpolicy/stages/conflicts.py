"""Warnings about user-written keys that conflict with what a stage leaves (docs/stages.md).

Judged on the stage's target, so ``check`` reports them before ``fix`` writes.
Upstream is NexusGPU/tensor-fusion at 3e0a4901, ``internal/webhook/v1/tf_parser.go``:

- ``tflops-and-compute-percent``: both families set; the scheduler then fails to
  read the request and reserves nothing (``internal/utils/config.go:201-205``);
- ``gpu-count-disagrees``: a ``gpu-count`` next to native GPU limits that ask for
  another number; the webhook takes the annotation and does not scan the
  limits (tf_parser.go:430-444);
- ``gpu-indices-disagrees``: ``gpu-indices`` naming another number of GPUs than
  the pod asks for; the indices set the count (tf_parser.go:581-589);
- ``dedicated-gpu-overrides-share``: ``dedicated-gpu: "true"`` next to share
  annotations; the webhook then sets TFLOPS and VRAM request and limit to the
  whole capacity of ``gpu-model`` (tf_parser.go:667-693), after the
  annotations were read, so a compute-percent ends up next to TFLOPS.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.findings import Severity
from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.stages.common import Note, annotations_of, gpu_usage, labels_of
from tfpolicy.stages.keys import ENABLED, GPU_COUNT, GPU_INDICES, PERCENT, TF, TFLOPS, VRAM

DEDICATED_GPU = TF + "dedicated-gpu"  # the user's: no stage writes it


def conflicts(target: dict[str, Any], gpus: GpuResources) -> list[Note]:
    """What TensorFusion would misread in ``target``; nothing for a template it will not take."""
    if labels_of(target).get(ENABLED) != "true":
        return []
    found = annotations_of(target)
    native = native_count(target, gpus)
    count = _integer(found.get(GPU_COUNT), trim=False)  # ParseInt, untrimmed upstream
    return [*_both_shares(found), *_count_disagrees(count, native),
            *_indices_disagree(found.get(GPU_INDICES), count or native), *_dedicated(found)]


def native_count(template: Any, gpus: GpuResources) -> int | None:
    """The GPUs the containers ask for (a limit, else the request), or ``None`` when they ask
    for none or a count is not a whole number (reported elsewhere)."""
    total = 0
    for sections in gpu_usage(template, gpus).values():
        for value in (sections.get("limits") or sections.get("requests") or {}).values():
            try:
                amount = parse_quantity(value)
            except QuantityError:
                return None
            if amount.denominator != 1:
                return None
            total += int(amount)
    return total or None


def _both_shares(found: dict[str, Any]) -> list[Note]:
    percent = [key for key in PERCENT if key in found]
    if not percent or not any(key in found for key in TFLOPS):
        return []
    message = ("both tensor-fusion.ai/tflops-* and compute-percent-* are set: the scheduler "
               "cannot read the request and reserves nothing for this pod; keep one")
    return [Note(Severity.WARNING, "tflops-and-compute-percent", message,
                 ("metadata", "annotations", percent[0]))]


def _count_disagrees(count: int | None, native: int | None) -> list[Note]:
    if count is None or native is None or count == native:
        return []
    message = (f"{GPU_COUNT} {count} disagrees with the {native} GPUs the containers ask for: "
               "the webhook takes the annotation and ignores the native limits")
    return [Note(Severity.WARNING, "gpu-count-disagrees", message,
                 ("metadata", "annotations", GPU_COUNT))]


def _indices_disagree(indices: Any, count: int | None) -> list[Note]:
    wanted = _indices(indices)
    if wanted is None or count is None or wanted == count:
        return []
    message = (f"{GPU_INDICES} names {wanted} GPUs but the pod asks for {count}: the webhook "
               "takes the number of indices")
    return [Note(Severity.WARNING, "gpu-indices-disagrees", message,
                 ("metadata", "annotations", GPU_INDICES))]


def _dedicated(found: dict[str, Any]) -> list[Note]:
    shares = [key for key in (*TFLOPS, *PERCENT, *VRAM) if key in found]
    if found.get(DEDICATED_GPU) != "true" or not shares:  # compared exactly upstream
        return []
    message = (f"{DEDICATED_GPU} is true: the webhook sets TFLOPS and VRAM request and limit "
               f"to the whole capacity of the gpu-model, over {', '.join(shares)}")
    return [Note(Severity.WARNING, "dedicated-gpu-overrides-share", message,
                 ("metadata", "annotations", DEDICATED_GPU))]


def _integer(value: Any, trim: bool) -> int | None:
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    text = text.strip() if trim else text
    return int(text) if text.isascii() and text.isdigit() else None


def _indices(value: Any) -> int | None:
    """How many indices a comma list names (upstream trims each; malformed: ``None``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    items = [_integer(item, trim=True) for item in value.split(",")]
    return None if any(item is None for item in items) else len(items)
