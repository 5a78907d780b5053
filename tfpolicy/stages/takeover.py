"""Stage ``takeover``: hand the whole card to TensorFusion (guide step 2).

Label enabled and ``isolation: shared``; GPU limits stay, so the webhook
turns them into ``gpu-count`` and count-only whole-GPU allocation
(reference/tensor-fusion.md §2.2, §9.1–9.2: without ``shared`` a labelled
pod would become ``soft`` with compute-percent 100 and no VRAM reserved).
"""

from __future__ import annotations

import copy
from typing import Any

from tfpolicy.policy import Settings
from tfpolicy.stages.common import ENABLED, TF, Note, StageContext
from tfpolicy.stages.shared import enabled_replicas, placement_annotations

ISOLATION = TF + "isolation"


def target(
    original: dict[str, Any], settings: Settings, ctx: StageContext
) -> tuple[dict[str, Any] | None, list[Note]]:
    result = copy.deepcopy(original)
    meta = result.setdefault("metadata", {})
    meta.setdefault("labels", {})[ENABLED] = "true"
    cap, notes = enabled_replicas(settings, ctx)
    wanted = {ISOLATION: "shared", **cap, **placement_annotations(settings)}
    meta.setdefault("annotations", {}).update(wanted)
    return result, notes
