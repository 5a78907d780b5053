"""Which policy owns a pod template: the objects of a document, their subjects, the owner.

Shared by the engine and the pass that orders a canary rung's workloads
(:mod:`tfpolicy.rewrite.cohort`), so both see the same owners.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.policy.match import Subject, explain
from tfpolicy.policy.model import Policy
from tfpolicy.stages.common import Note, labels_of

Report = Callable[[Note, str], None]


def objects(data: Any) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """The document itself, or each item of a ``kind: List``."""
    if not isinstance(data, Mapping):
        return
    if data.get("kind") == "List" and isinstance(data.get("items"), list):
        for index, item in enumerate(data["items"]):
            if isinstance(item, Mapping):
                yield ("items", index), item
    else:
        yield (), data


def subject_of(obj: Mapping[str, Any], template: Any, namespace: str) -> Subject:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    workload_labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
    return Subject(
        kind=str(obj.get("kind", "")), name=str(meta.get("name", "")),
        namespace=str(meta.get("namespace") or namespace),
        labels=workload_labels or {}, pod_labels=labels_of(template),
    )


def _quiet(note: Note, policy: str) -> None:
    return None


def owner_of(policies: tuple[Policy, ...], subject: Subject, report: Report = _quiet,
             verbose: bool = False) -> Policy | None:
    """The first policy that selects ``subject``; the later ones are reported shadowed, and
    under ``verbose`` each one that does not select it, with why."""
    owner = None
    for policy in policies:
        reasons = explain(policy, subject)
        if not reasons and owner is None:
            owner = policy
        elif not reasons and owner is not None:
            message = f"also selected by policy {policy.name!r}, shadowed by {owner.name!r}"
            report(Note(Severity.INFO, "shadowed", message), policy.name)
        elif verbose:
            message = f"not selected by policy {policy.name!r}: {'; '.join(reasons)}"
            report(Note(Severity.INFO, "not-selected", message), policy.name)
    return owner


NO_POLICY = "no-policy"


def unselected(policies: tuple[Policy, ...]) -> Note:
    """A GPU workload no policy selects: it stays on the device plugin, never silently."""
    names = ", ".join(p.name for p in policies[:5]) + (", …" if len(policies) > 5 else "")
    of = f" ({names})" if names else ""
    return Note(Severity.WARNING, NO_POLICY,
                f"GPU workload selected by no policy{of}: it stays on the device plugin; "
                "--explain says why each policy passes it over")
