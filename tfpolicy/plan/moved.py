"""How many workloads a step really moves, whole objects counted once.

Shown where a canary rung moves the kinds TensorFusion cannot cap as whole
workloads (:mod:`tfpolicy.stages.canary`): then the pod count alone would
hide that some workloads are left exactly as they were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tfpolicy.edits import Path
from tfpolicy.findings import object_ref, shown_ref
from tfpolicy.plan.step_reports import Moved
from tfpolicy.plan.unit_pods import UnitPods
from tfpolicy.plan.units import Document, Unit, copy_of, with_copy
from tfpolicy.rewrite.cohort import SEP, generate_name_of, place
from tfpolicy.rewrite.engine import PolicySet, objects
from tfpolicy.stages.canary import Key, chosen


def moved_workloads(units: list[Unit], pods: Mapping[str, UnitPods], policies: PolicySet,
                    docs: Sequence[Document], namespace: str) -> Moved | None:
    """Counted over the simulated workloads; the ones moved whole and the ones waiting are
    the rung's choice, simulated or not (an Argo Workflow's pods are not)."""
    cohort = policies.cohort
    if cohort is None or not cohort.groups:
        return None
    counted: dict[tuple[int, Path], bool] = {}  # per object: its document and its path there
    for unit in units:
        key = (unit.doc, unit.base)
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
    """The members' names as reports show them (``shown_ref``, ``#2`` for the second run
    of one ``generateName``): a canary key holds a nameless object's ``generateName`` and
    its place (``tfpolicy.rewrite.cohort.key_of``)."""
    found: dict[Key, str] = {}
    seen: dict[str, int] = {}
    for doc in docs:
        for base, obj in objects(doc.data):
            ref, copy = object_ref(obj), copy_of(obj, namespace, seen)
            name = ref.name or f"{ref.generateName}{SEP}{place(doc.file, doc.index, base)}"
            key = (ref.namespace or namespace, ref.kind, name)
            if key in wanted:
                found.setdefault(key, with_copy(shown_ref(obj, namespace), copy))
    return found


def _shown(key: Key) -> str:
    namespace, kind, name = key
    return f"{kind}/{namespace}/{generate_name_of(key) or name or '(no name)'}"
