"""The stages, as an explicit registry: stage → target function (docs/stages.md).

Which keys each stage owns: :mod:`tfpolicy.stages.keys`; how they are
recorded and undone: :mod:`tfpolicy.stages.record`,
:mod:`tfpolicy.stages.ownership`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfpolicy.findings import Severity
from tfpolicy.policy.model import Settings, Stage
from tfpolicy.stages import rightsize, rollback, takeover
from tfpolicy.stages.carried import carried
from tfpolicy.stages.common import Note, StageContext, bad_counts, bad_names, gpu_usage
from tfpolicy.stages.conflicts import conflicts
from tfpolicy.stages.ownership import Undone

TargetFn = Callable[
    [dict[str, Any], Settings, StageContext], tuple[dict[str, Any] | None, list[Note]]
]

STAGES: dict[Stage, TargetFn] = {
    Stage.TAKEOVER: takeover.target,
    Stage.RIGHTSIZE: rightsize.target,
    Stage.ROLLBACK: rollback.target,
}


def run_stage(stage: Stage, original: dict[str, Any], settings: Settings,
              ctx: StageContext) -> tuple[dict[str, Any] | None, list[Note]]:
    """The stage's target for the original template, with what the user wrote that conflicts
    with it. A template whose GPU counts are not whole numbers (a placeholder, say) is
    refused by every stage but rollback, which only gives back what was there; so is one
    whose containers cannot be told apart by name.

    A refused template is left as the stage found it; if an earlier stage had written to
    it, a warning says so (:mod:`tfpolicy.stages.carried`)."""
    target, notes = _target(stage, dict(original), settings, ctx)
    if isinstance(original, Undone) and any(n.severity is Severity.ERROR for n in notes):
        notes.append(carried(original.record))
    return target, notes


def _target(stage: Stage, original: dict[str, Any], settings: Settings,
            ctx: StageContext) -> tuple[dict[str, Any] | None, list[Note]]:
    bad = bad_names(original)
    if stage is not Stage.ROLLBACK:
        bad += bad_counts(original, gpu_usage(original, ctx.gpus))
    if bad:
        return None, bad
    target, notes = STAGES[stage](original, settings, ctx)
    return target, notes + (conflicts(target, ctx.gpus) if target is not None else [])
