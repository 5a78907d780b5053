"""What one plan step should leave in the cluster, per workload (docs/verify.md).

The step's templates come from the plan's own pieces (the step's policy
documents through the engine, then the webhook simulation), so ``verify``
expects exactly what ``plan`` proved: how many pods of each workload are
TensorFusion pods, how many stay native, and what each TensorFusion pod
reserves per GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import WebhookConfig
from tfpolicy.errors import TfpolicyError
from tfpolicy.plan import (
    Document,
    PlanInput,
    Rung,
    Step,
    plan_steps,
    step_documents,
    with_hami,
)
from tfpolicy.plan.ladder import policy_set
from tfpolicy.plan.simulate import gpu_units
from tfpolicy.plan.templates import input_cohort, step_templates
from tfpolicy.plan.unit_pods import unit_pods
from tfpolicy.plan.units import Unit
from tfpolicy.records import Record, replace
from tfpolicy.scheduler import Inventory, PodKind, PodRequest
from tfpolicy.verify.matching import template_role
from tfpolicy.verify.shares import Share, planned_share
from tfpolicy.workloads.revisions import carries_template_hash


class Expected(Record):
    """One workload (the plan's unit) after the step."""

    key: str
    kind: str
    namespace: str
    name: str
    replicas: int
    tensor_fusion: int
    native: int
    request: PodRequest | None  # what each TensorFusion pod reserves, per GPU
    error: str = ""  # the webhook rejects its pods
    role: str = ""  # which of its object's templates: see verify.matching
    generate_name: str = ""  # a nameless object's prefix: its run is found in the cluster
    capped: bool = True  # an enabled-replicas cap bites on its pods (a canary rung moves
    # the other kinds whole: tfpolicy/stages/canary.py)
    share: Share | None = None  # what each TensorFusion pod holds per GPU (verify.shares)

    @property
    def complete(self) -> bool:
        """Every pod is taken over: the step is at 100 % for this workload."""
        return self.tensor_fusion == self.replicas and self.replicas > 0


class StepPlan(Record):
    step: Step
    previous: Step | None  # the step to go back to; None: before the first step
    workloads: tuple[Expected, ...]


class _Rendered(Record):
    steps: tuple[Step, ...]
    index: int  # the step's number
    given: PlanInput  # with the webhook as run_plan configures it
    units: tuple[Unit, ...]
    templates: Mapping[str, Mapping[str, Any]]  # per unit key, its pod template


def _rendered(given: PlanInput, number: int | None) -> _Rendered:
    policies = [dict(p) for p in given.policies]
    steps = plan_steps(policies, given.ladder)
    index = len(steps) if number is None else number
    if not 1 <= index <= len(steps):
        raise TfpolicyError(f"--step: {number} is not a step of this plan (1 to {len(steps)})")
    documents = step_documents(policies, steps[index - 1])
    docs = list(given.documents)
    found = input_cohort(docs, policy_set(documents, given.file, given.webhook.resources),
                         given.namespace)
    loaded = policy_set(policies, given.file, given.webhook.resources)
    given = replace(given, webhook=with_hami(given.webhook, loaded.policies))  # as run_plan
    units = gpu_units(docs, loaded, given)
    templates, _ = step_templates(docs, units, found, given.namespace)
    return _Rendered(tuple(steps), index, given, tuple(units), templates)


def step_templates_of(given: PlanInput, number: int) -> dict[str, Mapping[str, Any]]:
    """Per workload, the pod template step ``number`` writes (promote compares two rungs'
    to tell a rung that changes no pod, which no sync can show)."""
    return dict(_rendered(given, number).templates)


def expect(given: PlanInput, number: int | None) -> StepPlan:
    """The expectations of step ``number`` (default: the last step of the ladder)."""
    rendered = _rendered(given, number)
    steps, index, given = rendered.steps, rendered.index, rendered.given
    step, docs, templates = steps[index - 1], list(given.documents), rendered.templates
    workloads = []
    for unit in rendered.units:
        pods = unit_pods(unit, templates[unit.key], step.number, given.webhook)
        request = next((p for p in pods.pods if p.kind is PodKind.TENSOR_FUSION), None)
        role = template_role(docs[unit.doc].data, unit.path)
        workloads.append(Expected(unit.key, unit.kind, unit.namespace, unit.name, unit.replicas,
                                  pods.tensor_fusion, pods.native, request, pods.error, role,
                                  unit.generate_name, _capped(unit.kind, templates[unit.key]),
                                  planned_share(request, _notes(templates[unit.key]))))
    return StepPlan(step, steps[index - 2] if index > 1 else None, tuple(workloads))


def _notes(template: Mapping[str, Any]) -> Mapping[str, Any]:
    notes = (template.get("metadata") or {}).get("annotations") or {}
    return notes if isinstance(notes, Mapping) else {}


def _capped(kind: str, template: Mapping[str, Any]) -> bool:
    """Only pods with a ``pod-template-hash`` are counted against the cap
    (NexusGPU/tensor-fusion internal/webhook/v1/pod_counter.go:30-36)."""
    labels = (template.get("metadata") or {}).get("labels") or {}
    return carries_template_hash(kind, labels if isinstance(labels, Mapping) else {})


def plan_input(docs: list[Document], policies: list[Mapping[str, Any]], inventory: Inventory,
               webhook: WebhookConfig, ladder: tuple[Rung, ...], namespace: str,
               shown: str) -> PlanInput:
    return PlanInput(tuple(docs), tuple(policies), inventory, webhook, ladder, namespace, shown)
