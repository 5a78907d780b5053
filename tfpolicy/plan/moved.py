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
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.stages.canary import Key, chosen


def moved_workloads(units: list[Unit], pods: Mapping[str, UnitPods],
                    policies: PolicySet) -> Moved | None:
    """Counted over the simulated workloads; the ones moved whole and the ones waiting are
    the rung's choice, simulated or not (an Argo Workflow's pods are not)."""
    cohort = policies.cohort
    if cohort is None or not cohort.groups:
        return None
    objects: dict[Key, bool] = {}
    for unit in units:
        key = (unit.namespace, unit.kind, unit.name)
        objects[key] = objects.get(key, False) or pods[unit.key].tensor_fusion > 0
    rungs = {p.name: p.settings.enabled_replicas for p in policies.policies}
    picked: set[Key] = set()
    for name, _ in cohort.groups:
        wanted = rungs.get(name)
        picked |= set(chosen(cohort, name, wanted)) if wanted is not None else set()
    members = sorted({k for _, keys in cohort.groups for k in keys})
    whole = tuple(_shown(k) for k in members if k in picked)
    waiting = tuple(_shown(k) for k in members if k not in picked)
    return Moved(sum(objects.values()), len(objects), whole, waiting)


def _shown(key: Key) -> str:
    namespace, kind, name = key
    return f"{kind}/{namespace}/{name}"
