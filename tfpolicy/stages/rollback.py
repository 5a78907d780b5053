"""Stage ``rollback``: the template exactly as it was before tfpolicy.

The label and every ``tensor-fusion.ai/*`` annotation go; the GPU
resources come back from ``tfpolicy.dev/original-gpu-resources``.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.policy import Settings
from tfpolicy.stages.common import Note, StageContext


def target(
    original: dict[str, Any], settings: Settings, ctx: StageContext
) -> tuple[dict[str, Any] | None, list[Note]]:
    return original, []
