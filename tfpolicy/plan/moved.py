"""How many workloads a step really moves, whole objects counted once.

Shown where a canary rung moves the kinds TensorFusion cannot cap as whole
workloads (:mod:`tfpolicy.stages.canary`): then the pod count alone would
hide that some workloads are left exactly as they were.
"""

from __future__ import annotations

from collections.abc import Mapping

from tfpolicy.plan.pods import UnitPods
from tfpolicy.plan.records import Moved
from tfpolicy.plan.units import Unit
from tfpolicy.stages.canary import Cohort, Key


def moved_workloads(units: list[Unit], pods: Mapping[str, UnitPods],
                    cohort: Cohort | None) -> Moved | None:
    if cohort is None or not cohort.groups:
        return None
    objects: dict[Key, bool] = {}
    for unit in units:
        key = (unit.namespace, unit.kind, unit.name)
        objects[key] = objects.get(key, False) or pods[unit.key].tensor_fusion > 0
    members = sorted({k for _, keys in cohort.groups for k in keys})
    whole = tuple(_shown(k) for k in members if objects.get(k))
    waiting = tuple(_shown(k) for k in members if not objects.get(k))
    return Moved(sum(objects.values()), len(objects), whole, waiting)


def _shown(key: Key) -> str:
    namespace, kind, name = key
    return f"{kind}/{namespace}/{name}"
