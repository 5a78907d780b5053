"""How many workloads a step really moves, whole objects counted once.

Shown where a canary rung moves the kinds TensorFusion cannot cap as whole
workloads (:mod:`tfpolicy.stages.canary`): then the pod count alone would
hide that some workloads are left exactly as they were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tfpolicy.findings import object_ref, shown_ref
from tfpolicy.plan.pods import UnitPods
from tfpolicy.plan.records import Moved
from tfpolicy.plan.units import Document, Unit
from tfpolicy.rewrite.engine import PolicySet, objects
from tfpolicy.stages.canary import Key, chosen


def moved_workloads(units: list[Unit], pods: Mapping[str, UnitPods], policies: PolicySet,
                    docs: Sequence[Document], namespace: str) -> Moved | None:
    """Counted over the simulated workloads; the ones moved whole and the ones waiting are
    the rung's choice, simulated or not (an Argo Workflow's pods are not)."""
    cohort = policies.cohort
    if cohort is None or not cohort.groups:
        return None
    counted: dict[Key, bool] = {}
    for unit in units:
        key = (unit.namespace, unit.kind, unit.name or unit.generate_name)
        counted[key] = counted.get(key, False) or pods[unit.key].tensor_fusion > 0
    rungs = {p.name: p.settings.enabled_replicas for p in policies.policies}
    picked: set[Key] = set()
    for name, _ in cohort.groups:
        wanted = rungs.get(name)
        picked |= set(chosen(cohort, name, wanted)) if wanted is not None else set()
    members = sorted({k for _, keys in cohort.groups for k in keys})
    names = _names(docs, namespace, set(members))
    whole = tuple(names.get(k, _shown(k)) for k in members if k in picked)
    waiting = tuple(names.get(k, _shown(k)) for k in members if k not in picked)
    return Moved(sum(counted.values()), len(counted), whole, waiting)


def _names(docs: Sequence[Document], namespace: str, wanted: set[Key]) -> dict[Key, str]:
    """The members' names as reports show them (``shown_ref``): a canary key holds an
    object's ``generateName`` where it has no name (``tfpolicy.rewrite.cohort.key_of``)."""
    found: dict[Key, str] = {}
    for doc in docs:
        for _, obj in objects(doc.data):
            ref = object_ref(obj)
            key = (ref.namespace or namespace, ref.kind, ref.name or ref.generateName)
            if key in wanted:
                found.setdefault(key, shown_ref(obj, namespace))
    return found


def _shown(key: Key) -> str:
    namespace, kind, name = key
    return f"{kind}/{namespace}/{name or '(no name)'}"
