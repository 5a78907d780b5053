"""Argo Rollouts canary `pause` steps, read beside the unit's strategy (docs/plan.md).

A canary's `steps` run in order; at a `pause` step (`pause: {}` waits for a
promotion, `pause: {duration: …}` for a while) the rollout stops at the
weight its last `setWeight` reached. The plan does not wait: the step's
rollout stops there, its pods stay part old and part new, and the report
says so. Only the steps before the first pause count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import get_path
from tfpolicy.plan.units import Document, Unit
from tfpolicy.records import replace
from tfpolicy.scheduler import Strategy, StrategyType


def with_pause(unit: Unit, doc: Document) -> Unit:
    """``unit`` with its canary cut at the first `pause` step, when it has one."""
    steps = _canary_steps(unit, doc)
    strategy = unit.strategy
    if strategy is None or strategy.type is not StrategyType.ROLLING or steps is None:
        return unit
    first = next((i for i, s in enumerate(steps) if isinstance(s, Mapping) and "pause" in s),
                 None)
    if first is None:
        return unit
    weights = tuple(w for s in steps[:first] if (w := _weight(s)) is not None)
    cut: Strategy = replace(strategy, canary_weights=weights,
                            paused_at=weights[-1] if weights else 0)
    return replace(unit, strategy=cut)


def _canary_steps(unit: Unit, doc: Document) -> list[Any] | None:
    if unit.kind != "Rollout" or unit.path[-2:] != ("spec", "template"):
        return None
    obj = get_path(doc.data, unit.path[:-2])
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    strategy = spec.get("strategy") if isinstance(spec, Mapping) else None
    canary = strategy.get("canary") if isinstance(strategy, Mapping) else None
    steps = canary.get("steps") if isinstance(canary, Mapping) else None
    return steps if isinstance(steps, list) else None


def _weight(step: Any) -> int | None:
    """A `setWeight` as units.py reads it: a whole number from 0 to 100."""
    value = step.get("setWeight") if isinstance(step, Mapping) else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100:
        return value
    return None


def pause_warning(unit: Unit, kept: int, total: int) -> str:
    """What the report says of a canary held at a pause."""
    assert unit.strategy is not None and unit.strategy.paused_at is not None
    return (f"{unit.key}: canary pause at weight {unit.strategy.paused_at}%: the rollout "
            f"waits there with {total - kept} of {total} pods on the new template and {kept} "
            "on the old one until it is promoted; later steps start from that mix")
