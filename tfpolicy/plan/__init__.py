"""``tfpolicy plan``'s core: manifests → per-step pods via admission → scheduler proof
(docs/plan.md).

Pure: documents, policy documents, an inventory and the webhook configuration
in; a :class:`Plan` of step reports out. Entry points: :func:`run_plan`,
:func:`parse_ladder`, :func:`plan_steps`, :func:`step_documents`,
:func:`admission_pools`; :mod:`tfpolicy.plan.plan_json` prints a plan as text or
as the documented JSON.
"""

from tfpolicy.plan.ladder import (
    DEFAULT_LADDER,
    Rung,
    Step,
    parse_ladder,
    plan_steps,
    step_documents,
)
from tfpolicy.plan.simulate import MAX_PODS, PlanInput, TooManyPodsError, run_plan
from tfpolicy.plan.step_reports import Misfit, Plan, PodCounts, Status, StepReport, Summary
from tfpolicy.plan.summary import freed_between
from tfpolicy.plan.units import Document
from tfpolicy.plan.webhook_inputs import admission_pools, model_capacities, with_hami

__all__ = [
    "DEFAULT_LADDER",
    "MAX_PODS",
    "Document",
    "Misfit",
    "Plan",
    "PlanInput",
    "PodCounts",
    "Rung",
    "Status",
    "Step",
    "StepReport",
    "Summary",
    "TooManyPodsError",
    "admission_pools",
    "freed_between",
    "model_capacities",
    "parse_ladder",
    "plan_steps",
    "run_plan",
    "step_documents",
    "with_hami",
]
