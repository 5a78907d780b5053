"""PodDisruptionBudgets found in the manifests, as evictions each unit allows at once.

A PDB selects the pods of its namespace whose labels its `spec.selector`
matches (an empty selector matches all of them). `maxUnavailable` allows
that many evictions; `minAvailable` allows replicas − minAvailable;
percentages are rounded up, as the disruption controller does
(`pkg/controller/disruption/disruption.go`, `getExpectedScale` and
`GetScaledValueFromIntOrPercent(..., true)`). A pod under several PDBs
takes the smallest (the eviction API refuses a pod with more than one; 0
is the safe reading).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.plan.units import Document, Unit, unit_template
from tfpolicy.policy.selectors import Selector


def disruption_budgets(docs: list[Document], units: list[Unit],
                       namespace: str) -> dict[str, int]:
    """Unit key → evictions allowed at once; units no PDB selects are absent."""
    budgets: dict[str, int] = {}
    for pdb in (d.data for d in docs if _is_pdb(d.data)):
        meta = pdb.get("metadata") or {}
        spec = pdb.get("spec") or {}
        ns = str(meta.get("namespace") or namespace)
        selector = Selector.parse(spec.get("selector") or {})
        for unit in units:
            labels = (unit_template(docs, unit).get("metadata") or {}).get("labels") or {}
            if unit.namespace != ns or selector.miss(labels) is not None:
                continue
            allowed = _allowed(spec, unit.replicas)
            budgets[unit.key] = min(allowed, budgets.get(unit.key, allowed))
    return budgets


def _is_pdb(data: Any) -> bool:
    return (isinstance(data, Mapping) and data.get("kind") == "PodDisruptionBudget"
            and isinstance(data.get("spec") or {}, Mapping))


def _allowed(spec: Mapping[str, Any], replicas: int) -> int:
    if "maxUnavailable" in spec:
        return _scaled(spec["maxUnavailable"], replicas)
    if "minAvailable" in spec:
        return max(replicas - _scaled(spec["minAvailable"], replicas), 0)
    return replicas


def _scaled(value: Any, replicas: int) -> int:
    """An int or a percentage of ``replicas``, rounded up; anything else allows nothing."""
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value, 0)
    text = str(value)
    if text.endswith("%") and text[:-1].isdigit():
        return -(-int(text[:-1]) * replicas // 100)
    return 0
