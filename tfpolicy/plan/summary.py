"""Numbers read off the ledger: usage after a step, the misfit record, and the end summary.

A GPU is in use when the device plugin holds it or TensorFusion committed
anything on it (``report.user_of``); a node is in use when any of its GPUs
is. Costs come from the inventory (the GPU tables of ``tfpolicy.gpus.table``, or
the inventory's own ``costPerHour``), in micro-USD per hour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import NOT_MIGRATED_RULES, not_migrated
from tfpolicy.plan.step_reports import Misfit, StepReport, Summary
from tfpolicy.plan.units import Document
from tfpolicy.records import replace
from tfpolicy.rewrite.engine import DocResult, PolicySet, gpu_requests, objects
from tfpolicy.rewrite.pipeline import Markers
from tfpolicy.scheduler import (
    Failure,
    GpuUser,
    Ledger,
    StepResult,
    Usage,
    oversubscribed_gpus,
    pool_usage,
    usage,
)
from tfpolicy.scheduler.report import user_of
from tfpolicy.stages.common import is_gpu_workload
from tfpolicy.workloads import finder


def report_after(report: StepReport, ledger: Ledger) -> StepReport:
    return replace(report, usage=usage(ledger), pools=pool_usage(ledger),
                   oversubscribed=oversubscribed_gpus(ledger), nodes_in_use=nodes_in_use(ledger))


def report_rolled(report: StepReport, result: StepResult, ledger: Ledger) -> StepReport:
    """`report_after` with the numbers the rollout already read off the same ledger."""
    return replace(report, usage=result.after, pools=result.pools,
                   oversubscribed=result.oversubscribed, nodes_in_use=nodes_in_use(ledger))


def failure_misfit(failure: Failure) -> Misfit:
    return Misfit(failure.workload, failure.pod.name, failure.diagnosis.message,
                  failure.diagnosis, failure.old_running, failure.new_running)


def nodes_in_use(ledger: Ledger) -> int:
    return sum(
        any(user_of(state) is not GpuUser.IDLE for state in states)
        for states in ledger.node_gpus.values()
    )


def _in_use(used: Usage) -> tuple[int, int]:
    total = used.total
    return (total.tensor_fusion + total.device_plugin,
            total.tensor_fusion_cost + total.device_plugin_cost)


def freed_between(before: StepReport, after: StepReport) -> Summary:
    """What step ``after`` leaves free against step ``before``, by the summary's measure
    (GPUs and nodes in use, their cost per hour): for promote, the savings the plan promised
    at a rightsize rung, against the whole cards of takeover-100."""
    assert before.usage is not None and after.usage is not None
    gpus_before, cost_before = _in_use(before.usage)
    gpus_after, cost_after = _in_use(after.usage)
    total = before.usage.total
    return Summary(gpus_before, gpus_after, before.nodes_in_use, after.nodes_in_use,
                   cost_before, cost_after,
                   total.idle + total.tensor_fusion + total.device_plugin, 0)


def summarize(start: StepReport, steps: list[StepReport], ledger: Ledger,
              not_migrated: tuple[tuple[str, int], ...] = ()) -> Summary:
    """Start vs the ledger as the plan left it (the end, or the step that did not fit)."""
    assert start.usage is not None
    gpus_before, cost_before = _in_use(start.usage)
    gpus_after, cost_after = _in_use(usage(ledger))
    return Summary(gpus_before, gpus_after, start.nodes_in_use, nodes_in_use(ledger),
                   cost_before, cost_after, len(ledger.gpus), len(ledger.node_gpus),
                   not_migrated)


def requests_not_migrated(docs: list[Document], policies: PolicySet,
                          planned: Mapping[int, DocResult] | None = None,
                          ) -> tuple[tuple[str, int], ...]:
    """GPU requests of the manifests that no step can migrate, by rule, counted as ``check``
    reports them (:mod:`tfpolicy.workloads.finder`, and the fields a kind reports or refuses):
    the plan leaves their pods with the device plugin, before and after alike.

    ``planned``: the engine's last result per document number, whose findings already
    say it (the steps planned every document with a GPU pod); the others are walked here,
    only those the text prefilter passes.
    """
    counts = dict.fromkeys(NOT_MIGRATED_RULES, 0)
    markers = Markers.of(policies.markers())
    for number, doc in enumerate(docs):
        result = (planned or {}).get(number)
        if result is not None:
            for rule, n in not_migrated(result.findings).items():
                counts[rule] += n
            continue
        # the text prefilter ``apply`` uses, on the data's repr (made in C): most documents
        # of a fleet name no GPU, and need no walk
        if not markers.found_in(repr(doc.data)):
            continue
        for _, obj in objects(doc.data):
            for rule in _unmigrated_rules(obj, policies):
                counts[rule] += 1
    return tuple((rule, n) for rule, n in counts.items() if n)


def _unmigrated_rules(obj: Mapping[str, Any], policies: PolicySet) -> list[str]:
    requests, configured = gpu_requests(obj, policies)
    if not requests:
        return []
    registry = policies.registry
    views = [v for v in registry.views(obj)
             if is_gpu_workload(v.template, policies.gpus, policies.hami)]
    reported: list[Path] = [p for p, _ in registry.reports(obj, policies.gpus)]
    handled = (*(v.path for v in views), *reported)
    known = finder.Known(registry.knows(obj), handled, configured, policies.claims)
    refused = [v.refused_rule for v in views if v.counted]
    return ([u.rule for u in finder.counted(finder.unmigrated(obj, requests, known))]
            + ["kind-not-migrated"] * len(reported) + refused)


_LETTER = {GpuUser.DEVICE_PLUGIN: "d", GpuUser.TENSOR_FUSION: "t", GpuUser.IDLE: "i"}


def gpu_map(ledger: Ledger) -> tuple[tuple[str, str], ...]:
    """Each node (by name) with one letter per GPU: who uses it (the HTML heat map)."""
    return tuple((node, "".join(_LETTER[user_of(s)] for s in states))
                 for node, states in sorted(ledger.node_gpus.items()))
