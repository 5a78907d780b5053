"""Stage ``takeover``: hand the whole card to TensorFusion (guide step 2).

Label enabled and ``isolation: shared`` (its keys: :mod:`tfpolicy.stages.keys`,
each recorded with the user's value); GPU limits stay, so the webhook
turns them into ``gpu-count`` and count-only whole-GPU allocation
(NexusGPU/tensor-fusion ``internal/webhook/v1/tf_parser.go:463-468``: without ``shared`` a
labelled pod would become ``soft`` with compute-percent 100 and no VRAM
reserved).
"""

from __future__ import annotations

from typing import Any

from tfpolicy.edits import clone
from tfpolicy.findings import Severity
from tfpolicy.gpus.resources import HAMI, MIG_PREFIX
from tfpolicy.policy.model import Settings
from tfpolicy.stages.common import Note, StageContext, gpu_usage
from tfpolicy.stages.hami import refusal
from tfpolicy.stages.keys import ENABLED, ISOLATION
from tfpolicy.stages.ownership import Writes, stamp
from tfpolicy.stages.shared import enabled_replicas, placement_annotations


def target(
    original: dict[str, Any], settings: Settings, ctx: StageContext
) -> tuple[dict[str, Any] | None, list[Note]]:
    refused = refusal(original, "which takeover keeps", settings.hami or HAMI)
    if refused:
        return None, refused
    cap, notes = enabled_replicas(settings, ctx)
    wanted = {ISOLATION: "shared", **cap, **placement_annotations(settings)}
    result, stamped = stamp(_metadata_copied(original), Writes({ENABLED: "true"}, wanted))
    return result, notes + stamped + _mig_slices(original, ctx)


def _metadata_copied(original: dict[str, Any]) -> dict[str, Any]:
    """``original`` with its metadata copied, the only part takeover writes (its labels and
    annotations, and the record's layout the engine adds); the rest is shared, only read,
    so the diff finds it unchanged at a glance."""
    result = dict(original)
    if "metadata" in result:
        result["metadata"] = clone(result["metadata"])
    return result


def _mig_slices(original: dict[str, Any], ctx: StageContext) -> list[Note]:
    """Shared isolation takes a whole idle GPU per counted GPU; a MIG slice counts as one
    (NexusGPU/tensor-fusion ``internal/webhook/v1/tf_parser.go:452-461``,
    ``internal/gpuallocator/gpuallocator.go:975-977``), so a 1g.10gb slice becomes a full
    card."""
    notes = []
    for name, sections in gpu_usage(original, ctx.gpus).items():
        for resource in {r for entries in sections.values() for r in entries}:
            if resource.startswith(MIG_PREFIX):
                message = (f"{resource} in container {name!r} becomes one whole GPU "
                           "under isolation shared")
                notes.append(Note(Severity.WARNING, "mig-whole-gpu", message))
    return sorted(notes, key=lambda n: n.message)
