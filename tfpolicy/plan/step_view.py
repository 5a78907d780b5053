"""One step's pod templates, per GPU unit, as the plan renders them (docs/plan.md): for
what a rung writes into each workload, without simulating the rollout (``promote``'s
pre-allocation check)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.plan.ladder import plan_steps, policy_set, step_documents
from tfpolicy.plan.simulate import PlanInput, gpu_units
from tfpolicy.plan.templates import input_cohort, step_templates
from tfpolicy.plan.units import Unit
from tfpolicy.plan.webhook_inputs import with_hami
from tfpolicy.records import replace


def step_units(given: PlanInput, number: int) -> list[tuple[Unit, Mapping[str, Any]]]:
    """Each GPU unit of the manifests with its pod template at step ``number`` (1-based,
    a step of the plan of ``given``)."""
    policies = [dict(p) for p in given.policies]
    step = plan_steps(policies, given.ladder)[number - 1]
    docs = list(given.documents)
    found = input_cohort(docs, policy_set(step_documents(policies, step), given.file,
                                          given.webhook.resources), given.namespace)
    loaded = policy_set(policies, given.file, given.webhook.resources)
    given = replace(given, webhook=with_hami(given.webhook, loaded.policies))  # as run_plan
    units = gpu_units(docs, loaded, given)
    templates, _ = step_templates(docs, units, found, given.namespace)
    return [(unit, templates[unit.key]) for unit in units if unit.key in templates]
