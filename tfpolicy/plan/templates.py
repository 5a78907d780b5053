"""Each step's pod templates, made by the engine itself (DESIGN §1, §4 "Plan").

The step's policy documents go through ``plan_document`` — the same call
``apply`` and ``fix`` make for every document — and its edits are applied
to the template's data. The text splice that ``apply`` adds on top only
keeps comments and layout, which admission does not read, so the plan
skips it and parses the manifests once for all steps.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tfpolicy.edits import Edit, Path, apply_edits
from tfpolicy.engine import DocContext, PolicySet, plan_document
from tfpolicy.findings import Severity
from tfpolicy.plan.units import Document, Unit, template_at


def _nowhere(path: Path) -> tuple[int, int]:
    return 0, 0


def step_templates(docs: list[Document], units: list[Unit], policies: PolicySet,
                   namespace: str) -> tuple[dict[str, Mapping[str, Any]], tuple[str, ...]]:
    """Per unit key, its template under ``policies``; and the engine's warnings and errors."""
    by_doc: dict[int, list[Unit]] = defaultdict(list)
    for unit in units:
        by_doc[unit.doc].append(unit)
    templates: dict[str, Mapping[str, Any]] = {}
    messages: list[str] = []
    for number, members in sorted(by_doc.items()):
        doc = docs[number]
        ctx = DocContext(doc.file, doc.index, _nowhere, namespace)
        result = plan_document(doc.data, policies, ctx)
        messages.extend(f"{f.resource}: {f.message}" for f in result.findings
                        if f.severity >= Severity.WARNING)
        for unit in members:
            templates[unit.key] = _edited(template_at(doc, unit.path), unit.path, result.edits)
    return templates, tuple(sorted(set(messages)))


def _edited(template: Mapping[str, Any], path: Path, edits: list[Edit]) -> Mapping[str, Any]:
    """The template with the edits under it; the original object when there are none."""
    mine = [replace(e, path=e.path[len(path):]) for e in edits if e.path[:len(path)] == path]
    result: Mapping[str, Any] = apply_edits(template, mine) if mine else template
    return result
