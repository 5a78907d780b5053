"""A plan as text (for people) or as JSON (stable: the keys below are the contract, docs/plan.md).

Units in JSON: TFLOPS as decimal numbers (the ledger's milli-TFLOPS / 1000),
VRAM in MiB, costs in USD per hour (micro-USD / 10⁶). Lists keep the
plan's order: steps by number, pools and GPUs by name.
"""

from __future__ import annotations

import json
from typing import Any

from tfpolicy.plan.step_reports import Misfit, Plan, StepReport, Summary, WorkloadUse
from tfpolicy.scheduler import Consolidation, GpuLimits, PoolUsage, Usage
from tfpolicy.scheduler.rules import REASON_TEXT

API_VERSION = "tfpolicy.dev/v1alpha1"


def as_json(plan: Plan) -> str:
    return json.dumps(plan_dict(plan), indent=2, sort_keys=False) + "\n"


def plan_dict(plan: Plan) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "Plan", "fits": plan.fits,
            "start": step_dict(plan.start), "steps": [step_dict(s) for s in plan.steps],
            "summary": summary_dict(plan.summary),
            "consolidation": consolidation_dict(plan.consolidation)}


def consolidation_dict(c: Consolidation | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"nodesBefore": c.nodes_before, "nodesAfter": c.nodes_after,
            "nodesRemovable": len(c.removed), "lowerBound": c.lower_bound,
            "gpusFreed": c.gpus_freed, "costPerHourFreed": _usd(c.cost_freed),
            "evictions": c.evictions, "blockedByBudget": c.blocked_by_budget,
            "removable": list(c.removed)}


def step_dict(step: StepReport) -> dict[str, Any]:
    return {
        "number": step.number, "name": step.name, "stage": step.stage, "rung": step.rung,
        "status": step.status.value, "fits": step.fits, "rolled": list(step.rolled),
        "pods": {"tensorFusion": step.pods.tensor_fusion,
                 "devicePlugin": step.pods.device_plugin, "noGpu": step.pods.no_gpu},
        "gpus": _gpus(step.usage), "costPerHour": _cost(step.usage),
        "nodesInUse": step.nodes_in_use,
        "pools": [_pool(p) for p in step.pools],
        "oversubscribedGpus": [_limits(g) for g in step.oversubscribed],
        "unschedulable": [_misfit(m) for m in step.unschedulable],
        "warnings": list(step.warnings),
        "workloads": [_use(w) for w in step.workloads],
        **({} if step.moved is None else {"moved": {
            "tensorFusion": step.moved.tensor_fusion, "total": step.moved.total,
            "whole": list(step.moved.whole), "waiting": list(step.moved.waiting)}}),
    }


def _cost(used: Usage | None) -> float | None:
    """USD per hour of the GPUs in use after the step (the summary's measure)."""
    if used is None:
        return None
    return _usd(used.total.tensor_fusion_cost + used.total.device_plugin_cost)


def _use(w: WorkloadUse) -> dict[str, Any]:
    return {"workload": w.workload, "tensorFusionPods": w.tensor_fusion,
            "devicePluginPods": w.device_plugin, "wholeGpus": w.whole_gpus,
            "tflops": _tflops(w.tflops), "vramMiB": w.vram, "nodes": list(w.nodes)}


def _gpus(used: Usage | None) -> dict[str, int] | None:
    if used is None:
        return None
    t = used.total
    return {"total": t.idle + t.tensor_fusion + t.device_plugin, "devicePlugin": t.device_plugin,
            "tensorFusion": t.tensor_fusion, "idle": t.idle}


def _tflops(milli: int) -> float | int:
    return milli // 1000 if milli % 1000 == 0 else milli / 1000


def _pool(p: PoolUsage) -> dict[str, Any]:
    return {"name": p.pool, "gpus": p.gpus, "oversubscribed": p.oversubscribed,
            "tflops": {"requested": _tflops(p.requested_tflops), "limit": _tflops(p.limit_tflops),
                       "capacity": _tflops(p.tflops), "virtual": _tflops(p.virtual_tflops)},
            "vramMiB": {"requested": p.requested_vram, "limit": p.limit_vram,
                        "capacity": p.vram, "virtual": p.virtual_vram}}


def _limits(g: GpuLimits) -> dict[str, Any]:
    return {"gpu": g.gpu, "node": g.node, "pool": g.pool,
            "tflopsLimit": _tflops(g.limit_tflops), "tflopsVirtual": _tflops(g.virtual_tflops),
            "vramLimitMiB": g.limit_vram, "vramVirtualMiB": g.virtual_vram}


def _misfit(m: Misfit) -> dict[str, Any]:
    reasons = [] if m.diagnosis is None else [
        {"reason": REASON_TEXT[r], "nodes": n} for r, n in m.diagnosis.node_reasons]
    return {"workload": m.workload, "pod": m.pod, "message": m.message, "reasons": reasons,
            "oldRunning": m.old_running, "newRunning": m.new_running}


def _usd(micro: int) -> float:
    return round(micro / 1_000_000, 6)


def summary_dict(s: Summary) -> dict[str, Any]:
    """The summary; ``gpuRequestsNotMigrated`` only when some are (by rule)."""
    out = _summary_dict(s)
    if s.not_migrated:
        out["gpuRequestsNotMigrated"] = dict(s.not_migrated)
    return out


def _summary_dict(s: Summary) -> dict[str, Any]:
    return {"gpusTotal": s.gpus_total, "nodesTotal": s.nodes_total,
            "gpusBefore": s.gpus_before, "gpusAfter": s.gpus_after, "gpusFreed": s.gpus_freed,
            "nodesBefore": s.nodes_before, "nodesAfter": s.nodes_after,
            "nodesFreed": s.nodes_freed, "costPerHourBefore": _usd(s.cost_before),
            "costPerHourAfter": _usd(s.cost_after),
            "costPerHourSaved": _usd(s.cost_before - s.cost_after)}


def cost_change(s: Summary) -> str:
    """The change of the cost per hour of the GPUs in use, and why it rises when it does:
    more GPUs in use, or GPUs dearer on average (TensorFusion's pool holds other models than
    the nodes the device-plugin pods ran on)."""
    saved = s.cost_before - s.cost_after
    if saved >= 0:
        return f"${saved / 1e6:.2f} saved"
    more = f"${-saved / 1e6:.2f} more"
    if s.gpus_after > s.gpus_before:
        return f"{more}: {s.gpus_after - s.gpus_before} more GPUs in use"
    before = s.cost_before / max(s.gpus_before, 1) / 1e6
    after = s.cost_after / max(s.gpus_after, 1) / 1e6
    return (f"{more}: {s.gpus_after} GPUs in use at ${after:.2f}/h on average against "
            f"{s.gpus_before} at ${before:.2f}/h: the pods moved to the pool's dearer GPUs "
            "and too few whole GPUs are freed to make up for it")
