"""Each step's pod templates, made by the engine itself (docs/plan.md).

The step's policy documents go through ``plan_document`` — the same call
``apply`` and ``fix`` make for every document — and its edits are applied
to the template's data. The text splice that ``apply`` adds on top only
keeps comments and layout, which admission does not read, so the plan
skips it and parses the manifests once for all steps.

From one step to the next most policies stay as they are (in the rightsize
steps, every takeover policy), and a document's result depends only on the
policies that select one of its templates (the engine reports no other
unless asked to explain) and on what all policies add to the GPU resource
names and template kinds. ``StepCache`` keeps each document's last result
with that key, so a document is planned again only when the key changes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tfpolicy.edits import Edit, Path, apply_edits, get_path
from tfpolicy.findings import Severity
from tfpolicy.plan.units import Document, Unit, template_at
from tfpolicy.policy.match import Subject, selects
from tfpolicy.records import replace
from tfpolicy.rewrite import cohort
from tfpolicy.rewrite.engine import (
    DocContext,
    DocResult,
    PolicySet,
    canary_scope,
    objects,
    plan_document,
    with_cohort,
)
from tfpolicy.rewrite.owners import NO_POLICY
from tfpolicy.stages.common import labels_of
from tfpolicy.workloads import Registry, dra


@dataclass
class StepCache:
    """Per document: which policies (by position) select a template of it, and its last
    result with the key it was planned under."""

    matching: tuple[Any, ...] = ()  # what selection read off the policies: a change resets
    selecting: dict[int, tuple[int, ...]] = field(default_factory=dict)
    last: dict[int, tuple[tuple[Any, ...], DocResult]] = field(default_factory=dict)
    templates: dict[str, Mapping[str, Any]] = field(default_factory=dict)  # per unit, the last

    def follow(self, policies: PolicySet) -> None:
        """Forget everything if the policies select differently (no ladder step does that)."""
        matching = tuple((p.match, p.exclude, p.template_kinds) for p in policies.policies)
        if matching != self.matching:
            self.matching, self.selecting, self.last, self.templates = matching, {}, {}, {}


def _numbered(doc: Document) -> Callable[[Path], tuple[int, int]]:
    """Where the engine places what it finds in ``doc``: the plan parses documents without
    their lines, so each is placed at its number, which keeps nameless objects apart
    (``tfpolicy.rewrite.cohort.place``) as ``input_cohort`` does."""
    return lambda _: (doc.index, 0)


def input_cohort(docs: list[Document], policies: PolicySet, namespace: str) -> PolicySet:
    """``policies`` with a canary rung's whole workloads ordered over all the plan's
    documents, as ``apply`` orders them over its input (:mod:`tfpolicy.rewrite.cohort`),
    and the documents' DRA claims (``input_claims``)."""
    policies = input_claims(docs, policies, namespace)
    scope = canary_scope(policies)
    if scope is None:
        return policies
    return with_cohort(policies, [m for doc in docs for m in cohort.members(
        doc.data, scope, namespace, partial(cohort.place, doc.file, doc.index))])


def input_claims(docs: list[Document], policies: PolicySet, namespace: str) -> PolicySet:
    """``policies`` with the DRA claims and DeviceClasses of all the plan's documents, as
    ``apply`` indexes them over its input (:mod:`tfpolicy.rewrite.firstpass`)."""
    if policies.claims is not None:
        return policies
    return replace(policies, claims=dra.index(
        [obj for doc in docs for _, obj in objects(doc.data)
         if str(obj.get("apiVersion", "")).startswith(dra.GROUP + "/")], namespace))


def step_templates(docs: list[Document], units: list[Unit], policies: PolicySet,
                   namespace: str, cache: StepCache | None = None,
                   ) -> tuple[dict[str, Mapping[str, Any]], tuple[str, ...]]:
    """Per unit key, its template under ``policies``; and the engine's warnings and errors.
    A canary rung's whole workloads are ordered over ``docs`` unless ``policies`` already
    are (``input_cohort``)."""
    if policies.cohort is None:
        policies = input_cohort(docs, policies, namespace)
    if cache is not None:
        cache.follow(policies)
    by_doc: dict[int, list[Unit]] = defaultdict(list)
    for unit in units:
        by_doc[unit.doc].append(unit)
    templates: dict[str, Mapping[str, Any]] = {}
    messages: list[str] = []
    for number, members in sorted(by_doc.items()):
        doc = docs[number]
        result, again = _planned(number, doc, policies, namespace, cache)
        messages.extend(f"{f.resource}: {f.message}" for f in result.findings
                        if f.severity >= Severity.WARNING and f.rule != NO_POLICY)
        for unit in members:
            if again and cache is not None and unit.key in cache.templates:
                templates[unit.key] = cache.templates[unit.key]
                continue
            templates[unit.key] = _unit_edited(doc, unit, result.edits, policies.registry)
            if cache is not None:
                cache.templates[unit.key] = templates[unit.key]
    return templates, tuple(sorted(set(messages)))


def _planned(number: int, doc: Document, policies: PolicySet, namespace: str,
             cache: StepCache | None) -> tuple[DocResult, bool]:
    """``plan_document``, or its last result when nothing it depends on changed (True)."""
    if cache is None:
        return plan_document(doc.data, policies, DocContext(doc.file, doc.index, _numbered(doc),
                                                           namespace)), False
    if number not in cache.selecting:
        cache.selecting[number] = _selecting(doc, policies, namespace)
    key = (tuple((p.gpu_resources, p.template_kinds) for p in policies.policies),
           tuple(policies.policies[i] for i in cache.selecting[number]), policies.cohort)
    last = cache.last.get(number)
    if last is not None and last[0] == key:
        return last[1], True
    result = plan_document(doc.data, policies, DocContext(doc.file, doc.index, _numbered(doc),
                                                         namespace))
    cache.last[number] = (key, result)
    return result, False


def _selecting(doc: Document, policies: PolicySet, namespace: str) -> tuple[int, ...]:
    """Positions of the policies that select some pod template of ``doc``: matching reads
    kind, names, namespace and labels, which no step changes. The subject is built as the
    engine builds it (`engine._subject`)."""
    subjects = [_subject(obj, obj_template, namespace) for _, obj in objects(doc.data)
                for obj_template in _templates(obj, policies)]
    return tuple(i for i, p in enumerate(policies.policies)
                 if any(selects(p, s) for s in subjects))


def _templates(obj: Mapping[str, Any], policies: PolicySet) -> list[Any]:
    """Every pod shape the engine plans: whole templates and views alike."""
    return [view.template for view in policies.registry.views(obj)]


def _subject(obj: Mapping[str, Any], template: Any, namespace: str) -> Subject:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
    return Subject(kind=str(obj.get("kind", "")), name=str(meta.get("name", "")),
                   namespace=str(meta.get("namespace") or namespace),
                   labels=labels or {}, pod_labels=labels_of(template))


def _unit_edited(doc: Document, unit: Unit, edits: list[Edit],
                 registry: Registry) -> Mapping[str, Any]:
    """The unit's template with the step's edits: for a pod whose parts live apart, the
    edits go to its object (at their real paths) and the view is built again from it, as
    the engine builds it."""
    shaped = unit.shaped
    if shaped is None:
        return _edited(template_at(doc, unit.path), unit.path, edits)
    base = shaped.base
    mine = [replace(e, path=e.path[len(base):]) for e in edits if e.path[:len(base)] == base]
    if not mine:
        template: Mapping[str, Any] = shaped.view.template
        return template
    edited: Mapping[str, Any] = registry.views(apply_edits(get_path(doc.data, base), mine))[
        shaped.index].template
    return edited


def _edited(template: Mapping[str, Any], path: Path, edits: list[Edit]) -> Mapping[str, Any]:
    """The template with the edits under it; the original object when there are none."""
    mine = [replace(e, path=e.path[len(path):]) for e in edits if e.path[:len(path)] == path]
    result: Mapping[str, Any] = apply_edits(template, mine) if mine else template
    return result
