"""Stage ``rollback``: the template exactly as it was before tfpolicy.

The engine hands every stage the template with tfpolicy's writes undone
(:func:`tfpolicy.stages.ownership.undo`): the keys the record names are
removed or given back the user's value, the maps a stage created go, and the
GPU resources come back. Rollback owns no key and adds nothing to that.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.policy.model import Settings
from tfpolicy.stages.common import Note, StageContext


def target(
    original: dict[str, Any], settings: Settings, ctx: StageContext
) -> tuple[dict[str, Any] | None, list[Note]]:
    return original, []
