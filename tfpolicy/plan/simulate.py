"""The plan's loop: place today's pods, then roll each step on the same ledger (docs/plan.md).

One ledger is carried from the start through every step, so a step starts
from exactly what the previous one left. A workload rolls in a step only
when its template changes. The plan stops at the first step that does not
fit (or whose pods the webhook rejects); later steps are reported not run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tfpolicy.admission import WebhookConfig
from tfpolicy.edits import Path
from tfpolicy.errors import TfpolicyError
from tfpolicy.plan import dra_held
from tfpolicy.plan.budgets import disruption_budgets
from tfpolicy.plan.by_workload import workload_uses
from tfpolicy.plan.ladder import Rung, Step, plan_steps, policy_set, step_documents
from tfpolicy.plan.moved import moved_workloads
from tfpolicy.plan.pauses import pause_warning, with_pause
from tfpolicy.plan.step_reports import Misfit, Plan, PodCounts, Status, StepReport
from tfpolicy.plan.summary import (
    failure_misfit,
    gpu_map,
    report_after,
    report_rolled,
    requests_not_migrated,
    summarize,
)
from tfpolicy.plan.templates import StepCache, input_claims, input_cohort, step_templates
from tfpolicy.plan.twice import refuse_twice
from tfpolicy.plan.unit_pods import UnitPods, unit_pods
from tfpolicy.plan.units import Document, LeftOut, Unit, unit_template, units_of
from tfpolicy.plan.webhook_inputs import with_hami
from tfpolicy.records import Record, field, replace
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.scheduler import (
    FastAllocator,
    Inventory,
    Ledger,
    PodKind,
    PodRequest,
    SchedulerSettings,
    StrategyType,
    Transition,
    consolidate,
    paused_target,
    place_pods,
    simulate_step,
)
from tfpolicy.stages.common import ENABLED, is_gpu_workload, labels_of
from tfpolicy.workloads.dra import ClaimIndex

# Each simulated pod costs memory and time; 100,000 GPU pods is far beyond any
# single cluster's GPU count, and `replicas: 1000000000` must not eat gigabytes.
MAX_PODS = 100_000


class PlanInput(Record):
    documents: tuple[Document, ...]
    policies: tuple[Mapping[str, Any], ...]  # schema-valid MigrationPolicy documents
    inventory: Inventory
    webhook: WebhookConfig
    ladder: tuple[Rung, ...]
    namespace: str = "default"
    file: str = "<plan>"  # shown as the policies' file in engine findings
    scheduler: SchedulerSettings | None = None  # None: the inventory's, else the chart's
    concurrent: bool = True  # a step's workloads roll at once, as a GitOps sync applies them
    consolidate: bool = True  # drain the nodes that can go once every step fits
    progress: Callable[[str], None] | None = None  # told what runs now (the CLI's stderr)


class _State(Record):
    """What runs now, per unit: its template and its pods."""

    templates: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    pods: dict[str, UnitPods] = field(default_factory=dict)
    planned: StepCache = field(default_factory=StepCache)  # the engine's results, per document
    left_out: tuple[str, ...] = ()  # GPU pod shapes not simulated, and why


def run_plan(given: PlanInput) -> Plan:
    docs, policies = list(given.documents), [dict(p) for p in given.policies]
    left_out: list[str] = []
    loaded = input_claims(docs, policy_set(policies, given.file, given.webhook.resources),
                          given.namespace)
    given = replace(given, webhook=with_hami(given.webhook, loaded.policies))
    units = gpu_units(docs, loaded, given, left_out)
    allocator = FastAllocator(Ledger(given.inventory, given.scheduler))
    state = _State(left_out=tuple(left_out))
    start = replace(_start(docs, units, allocator, state, given, loaded.claims),
                    workloads=workload_uses(allocator.ledger))
    before = gpu_map(allocator.ledger)
    reports, stopped = [], not start.fits
    steps = plan_steps(policies, given.ladder)
    for step in steps:
        _tell(given, f"step {step.number}/{len(steps)} {step.name}")
        if stopped:
            reports.append(StepReport(step.number, step.name, step.stage, _rung(step),
                                      Status.NOT_RUN))
            continue
        report = replace(_step(step, docs, units, allocator, state, given),
                         workloads=workload_uses(allocator.ledger))
        reports.append(report)
        stopped = not report.fits
    planned = {number: result for number, (_, result) in state.planned.last.items()}
    summary = summarize(start, reports, allocator.ledger,
                        requests_not_migrated(docs, loaded, planned))
    drained = None
    if given.consolidate and not stopped:
        _tell(given, "consolidation")
        daemons = frozenset(u.key for u in units if u.kind == "DaemonSet")
        drained = consolidate(allocator, disruption_budgets(docs, units, given.namespace),
                              daemons)
    return Plan(start, tuple(reports), summary, drained, before, gpu_map(allocator.ledger))


def _tell(given: PlanInput, what: str) -> None:
    if given.progress is not None:
        given.progress(what)


def gpu_units(docs: list[Document], policies: PolicySet, given: PlanInput,
              left_out: list[str] | None = None) -> list[Unit]:
    """Templates that ask for a GPU, or are TensorFusion pods already (at most MAX_PODS pods);
    ``left_out`` receives a warning for each such pod shape the plan does not simulate."""
    daemon, skipped = len(given.inventory.nodes), list[LeftOut]()
    found = [with_pause(u, docs[u.doc])
             for u in units_of(docs, policies.registry, given.namespace, daemon, skipped)
             if _uses_gpu(unit_template(docs, u), policies, u.namespace)]
    if left_out is not None:
        left_out.extend(f"{s.key}: not simulated: {s.reason}" for s in skipped
                        if _uses_gpu(s.template, policies, given.namespace))
    refuse_twice(docs, found)
    total = 0
    for unit in found:
        total += unit.replicas
        if total > MAX_PODS:
            raise TooManyPodsError(unit, docs[unit.doc])
    return found


class TooManyPodsError(TfpolicyError):
    """More GPU pods than the plan simulates; the command locates it at ``replicas``."""

    def __init__(self, unit: Unit, document: Document) -> None:
        super().__init__(
            f"{unit.key}: the plan simulates every GPU pod one by one, at most {MAX_PODS:,} "
            f"in all; these manifests ask for more ({unit.replicas:,} replicas here)",
            file=document.file)
        self.document = document
        self.replicas_path = _replicas_path(unit)


def _replicas_path(unit: Unit) -> Path:
    """Where the unit's count is written: its parent's ``replicas``, a component's
    ``minReplicas``, an LLMInferenceService workload's ``replicas``."""
    if unit.shaped is None:
        return (*unit.path[:-1], "replicas")
    return (*unit.path, "minReplicas" if unit.kind == "InferenceService" else "replicas")


def _uses_gpu(template: Mapping[str, Any], policies: PolicySet, namespace: str) -> bool:
    """A GPU pod: asks a GPU, is a TensorFusion pod already, or holds GPUs through DRA
    (which stay outside TensorFusion: :mod:`tfpolicy.plan.dra_held`)."""
    return (is_gpu_workload(template, policies.gpus, policies.hami)
            or labels_of(template).get(ENABLED) == "true"
            or bool(dra_held.held(template, namespace, policies.claims)))


def _start(docs: list[Document], units: list[Unit], allocator: FastAllocator, state: _State,
           given: PlanInput, claims: ClaimIndex | None = None) -> StepReport:
    rejected = []
    for unit in units:
        template = unit_template(docs, unit)
        shown = dra_held.as_plugin(template, unit.namespace, claims)
        pods = _on_each_node(unit, unit_pods(unit, shown, 0, given.webhook), given.inventory)
        state.templates[unit.key], state.pods[unit.key] = template, pods
        if pods.error:
            rejected.append(Misfit(unit.key, "", f"rejected by the webhook: {pods.error}"))
    running = [p for u in units for p in state.pods[u.key].pods]
    # The pool-bound TensorFusion pods first: device-plugin pods can take any node, so this
    # order rebuilds a running cluster the way it could have come about.
    running.sort(key=lambda p: p.kind is PodKind.DEVICE_PLUGIN)
    placed = place_pods(allocator, running)
    misfits = tuple(rejected) + tuple(failure_misfit(f) for f in placed)
    status = Status.DOES_NOT_FIT if misfits else Status.FITS
    warnings = tuple(sorted({*_warnings(state), *state.left_out}))
    return report_after(StepReport(0, "start", "", "", status, (), _counts(state), misfits,
                                   warnings=warnings), allocator.ledger)


def _on_each_node(unit: Unit, pods: UnitPods, inventory: Inventory) -> UnitPods:
    """A DaemonSet's pods, one bound to each node of the inventory (its controller creates
    one per node with that node's affinity); its rollouts keep each node's pod there."""
    if unit.kind != "DaemonSet" or len(pods.pods) != len(inventory.nodes):
        return pods
    return replace(pods, pods=tuple(replace(p, node=n.name)
                                    for p, n in zip(pods.pods, inventory.nodes, strict=True)))


def _step(step: Step, docs: list[Document], units: list[Unit], allocator: FastAllocator,
          state: _State, given: PlanInput) -> StepReport:
    documents = step_documents(list(given.policies), step)
    policies = input_cohort(docs, policy_set(documents, given.file, given.webhook.resources),
                            given.namespace)
    templates, messages = step_templates(docs, units, policies, given.namespace, state.planned)
    transitions, rejected = [], []
    for unit in units:
        template = templates[unit.key]
        if template is state.templates[unit.key] or template == state.templates[unit.key]:
            continue
        shown = dra_held.as_plugin(template, unit.namespace, policies.claims)
        pods = unit_pods(unit, shown, step.number, given.webhook)
        if pods.error:
            rejected.append(Misfit(unit.key, "", f"rejected by the webhook: {pods.error}"))
            continue
        old = state.pods[unit.key]
        transitions.append(Transition(unit.key, unit.kind, unit.replicas, old.pods, pods.pods,
                                      unit.strategy))
        state.templates[unit.key], state.pods[unit.key] = template, kept_pods(unit, old, pods)
    base = StepReport(step.number, step.name, step.stage, _rung(step), Status.FITS,
                      tuple(t.workload for t in transitions), _counts(state), (),
                      warnings=messages + _warnings(state), policies=tuple(documents),
                      moved=moved_workloads(units, state.pods, policies, docs,
                                            given.namespace))
    return _simulate(base, transitions, tuple(rejected), allocator, given.concurrent)


def kept_pods(unit: Unit, old: UnitPods, new: UnitPods) -> UnitPods:
    """What runs after the rollout: a StatefulSet keeps its ordinals below ``partition``
    on the old template, and with `OnDelete` keeps every pod until someone deletes it; a
    canary held at a `pause` keeps the old pods its weight leaves (the newest: the
    controller scales the old ReplicaSet down from the front)."""
    strategy = unit.strategy
    paused = paused_target(strategy, len(new.pods))
    if paused is not None:
        keep = min(len(new.pods) - paused, len(old.pods))
        return _mixed(new, old.pods[len(old.pods) - keep:] + new.pods[:paused],
                      pause_warning(unit, keep, keep + paused))
    if strategy is None or strategy.type not in (StrategyType.ORDERED, StrategyType.ON_DELETE):
        return new
    keep = len(old.pods) if strategy.type is StrategyType.ON_DELETE else strategy.partition
    if keep == 0:
        return new
    warning = (f"{unit.key}: updateStrategy OnDelete: its pods keep the old template until "
               "they are deleted" if strategy.type is StrategyType.ON_DELETE else
               f"{unit.key}: partition {keep}: ordinals below it keep the old template")
    return _mixed(new, old.pods[:keep] + new.pods[keep:], warning)


def _mixed(new: UnitPods, pods: tuple[PodRequest, ...], warning: str) -> UnitPods:
    native = sum(p.kind is PodKind.DEVICE_PLUGIN for p in pods)
    return replace(new, pods=pods, tensor_fusion=len(pods) - native, native=native,
                   warnings=(*new.warnings, warning))


def _simulate(base: StepReport, transitions: list[Transition], rejected: tuple[Misfit, ...],
              allocator: FastAllocator, concurrent: bool) -> StepReport:
    if rejected:
        return report_after(replace(base, status=Status.DOES_NOT_FIT, unschedulable=rejected),
                            allocator.ledger)
    result = simulate_step(allocator, transitions, concurrent)
    if result.fits:
        return report_rolled(base, result, allocator.ledger)
    return report_rolled(replace(base, status=Status.DOES_NOT_FIT,
                                 unschedulable=tuple(failure_misfit(f) for f in result.waiting)),
                         result, allocator.ledger)


def _counts(state: _State) -> PodCounts:
    pods = state.pods.values()
    return PodCounts(sum(p.tensor_fusion for p in pods), sum(p.native for p in pods),
                     sum(p.no_gpu for p in pods))


def _warnings(state: _State) -> tuple[str, ...]:
    return tuple(sorted({w for p in state.pods.values() for w in p.warnings}))


def _rung(step: Step) -> str:
    return "" if step.rung is None else str(step.rung)
