"""The stages, as an explicit registry: stage → target function (DESIGN §1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfpolicy.policy import Settings, Stage
from tfpolicy.stages import rightsize, rollback, takeover
from tfpolicy.stages.common import Note, StageContext

TargetFn = Callable[
    [dict[str, Any], Settings, StageContext], tuple[dict[str, Any] | None, list[Note]]
]

STAGES: dict[Stage, TargetFn] = {
    Stage.TAKEOVER: takeover.target,
    Stage.RIGHTSIZE: rightsize.target,
    Stage.ROLLBACK: rollback.target,
}
