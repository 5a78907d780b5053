"""Numbers read off the ledger: usage after a step, the misfit record, and the end summary.

A GPU is in use when the device plugin holds it or TensorFusion committed
anything on it (``report.user_of``); a node is in use when any of its GPUs
is. Costs come from the inventory (the GPU tables of reference §6/§10, or
the inventory's own ``costPerHour``), in micro-USD per hour.
"""

from __future__ import annotations

from dataclasses import replace

from tfpolicy.plan.records import Misfit, StepReport, Summary
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


def summarize(start: StepReport, steps: list[StepReport], ledger: Ledger) -> Summary:
    """Start vs the ledger as the plan left it (the end, or the step that did not fit)."""
    assert start.usage is not None
    gpus_before, cost_before = _in_use(start.usage)
    gpus_after, cost_after = _in_use(usage(ledger))
    return Summary(gpus_before, gpus_after, start.nodes_in_use, nodes_in_use(ledger),
                   cost_before, cost_after, len(ledger.gpus), len(ledger.node_gpus))


_LETTER = {GpuUser.DEVICE_PLUGIN: "d", GpuUser.TENSOR_FUSION: "t", GpuUser.IDLE: "i"}


def gpu_map(ledger: Ledger) -> tuple[tuple[str, str], ...]:
    """Each node (by name) with one letter per GPU: who uses it (the HTML heat map)."""
    return tuple((node, "".join(_LETTER[user_of(s)] for s in states))
                 for node, states in sorted(ledger.node_gpus.items()))
