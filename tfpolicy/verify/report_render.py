"""A verify report as text (for people) or JSON (the keys are the contract, docs/verify.md).

Units in JSON: TFLOPS as decimal numbers (milli-TFLOPS / 1000), VRAM in
MiB. Workloads keep the manifests' order in JSON; the text puts the problem
workloads first (stop, then wait), in that order within each verdict. GPUs
are sorted by name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tfpolicy.gates.render import gate_dict, text_lines
from tfpolicy.verify.verdicts import (
    GpuResult,
    Origin,
    Problem,
    Report,
    Savings,
    Shows,
    Verdict,
    WorkloadResult,
)

API_VERSION = "tfpolicy.dev/v1alpha1"
T = TypeVar("T")
_SAYS = {
    Verdict.READY: "ready for the next step",
    Verdict.WAIT: "wait: the rollout is in progress, verify again later",
    Verdict.STOP: "stop: roll back",
}


def as_json(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2) + "\n"


def report_dict(report: Report) -> dict[str, Any]:
    stop = report.verdict is Verdict.STOP
    return {"apiVersion": API_VERSION, "kind": "Verification", "step": report.step,
            "verdict": report.verdict.word, "rollback": report.rollback if stop else None,
            "snapshot": _origin(report.origin),
            "shows": None if report.shows is None else {
                "step": report.shows.number, "name": report.shows.name,
                "podsOff": report.shows.off, "askedPodsOff": report.shows.asked_off,
                "message": shows_line(report.shows)},
            "cluster": [_problem(p) for p in report.cluster],
            "workloads": [_workload(w) for w in report.workloads],
            "gpus": [_gpu(g) for g in report.gpus],
            "gates": [gate_dict(g) for g in report.gates],
            "savings": None if report.savings is None else savings_dict(report.savings)}


def savings_dict(savings: Savings) -> dict[str, Any]:
    return {"gpusFree": savings.gpus_free, "nodesFree": savings.nodes_free,
            "plannedGpusFree": savings.planned_gpus_free,
            "plannedNodesFree": savings.planned_nodes_free,
            "warning": savings.warning or None}


def savings_line(savings: Savings) -> str:
    """What the step freed in the cluster against what the plan promises for it."""
    return (f"savings: {savings.gpus_free} GPUs and {savings.nodes_free} GPU nodes free; "
            f"the plan promises {savings.planned_gpus_free} GPUs and "
            f"{savings.planned_nodes_free} GPU nodes free at this step")


def _origin(origin: Origin) -> dict[str, Any]:
    return {"source": origin.source, "latest": origin.latest or None,
            "pools": list(origin.pools), "gpuNodes": origin.nodes,
            "outlierTimes": list(origin.outliers), "outlierRule": origin.rule or None}


def origin_line(origin: Origin) -> str:
    """Where and when, by the snapshot's own data: which cluster it shows, and its age."""
    when = (f"its latest object time {origin.latest}" if origin.latest
            else "no time in its objects")
    pools = ", ".join(origin.pools) or "none"
    return (f"snapshot: {origin.source or 'given'}; {when}; GPU pools: {pools}; "
            f"GPU nodes: {origin.nodes}{outliers_said(origin)}")


def outliers_said(origin: Origin) -> str:
    """The object times not believed, and why (a clock out of line: docs/verify.md)."""
    if not origin.outliers:
        return ""
    shown = ", ".join(origin.outliers[:3]) + (" …" if len(origin.outliers) > 3 else "")
    return (f"; {len(origin.outliers)} object times set aside, {origin.rule}: {shown}")


def shows_line(shows: Shows) -> str:
    """Said before any verdict: the step asked may not be the step the cluster is at."""
    counts = (f"{shows.off} pods differ from it against {shows.asked_off} from the step "
              "asked")
    if shows.number == 0:
        return (f"the cluster shows no step taken yet, every GPU pod native ({counts}): "
                "is the step synced?")
    return (f"the cluster shows step {shows.number:02d} {shows.name} ({counts}); did you "
            f"mean --step {shows.number}?")


def problems_first(workloads: Iterable[T], verdict: Callable[[T], int]) -> list[T]:
    """Stop, then wait, then ready; the manifests' order within each (a stable sort)."""
    return sorted(workloads, key=lambda w: -verdict(w))


def _workload(result: WorkloadResult) -> dict[str, Any]:
    return {"workload": result.workload, "verdict": result.verdict.word,
            "tensorFusionPods": {"expected": result.expected_tf, "seen": result.seen_tf},
            "nativePods": {"expected": result.expected_native, "seen": result.seen_native},
            "problems": [_problem(p) for p in result.problems],
            "pods": [{"name": p.name, "tensorFusion": p.tensor_fusion, "status": p.status,
                      "gpus": list(p.gpus)} for p in result.pods],
            "replicaSets": [{"name": r.name, "revision": r.revision, "replicas": r.replicas,
                             "role": r.role} for r in result.replicasets]}


def _gpu(gpu: GpuResult) -> dict[str, Any]:
    return {"name": gpu.name, "node": gpu.node, "pods": list(gpu.pods),
            "available": {"tflops": gpu.tflops / 1000, "vramMiB": gpu.vram},
            "expected": {"tflops": gpu.expected_tflops / 1000, "vramMiB": gpu.expected_vram},
            "partitions": list(gpu.partitions),
            "verdict": (gpu.problem.verdict if gpu.problem else Verdict.READY).word,
            "message": gpu.problem.message if gpu.problem else None}


def _problem(problem: Problem) -> dict[str, str]:
    return {"verdict": problem.verdict.word, "subject": problem.subject,
            "message": problem.message}


def _says(report: Report) -> str:
    """A verdict the gates decided says so: the cluster itself shows the rung taken."""
    if report.cluster_verdict is Verdict.READY and report.verdict is Verdict.WAIT:
        return "wait: the rung took effect, its gates are not decided yet; verify again later"
    if report.cluster_verdict is not Verdict.STOP and report.verdict is Verdict.STOP:
        return "stop: a gate failed, roll back"
    return _SAYS[report.verdict]


def as_text(report: Report) -> str:
    says = _says(report) + (f": apply {report.rollback}"
                            if report.verdict is Verdict.STOP else "")
    lines = [] if report.shows is None else [shows_line(report.shows)]
    lines += [f"verify step {report.step}: {says}", origin_line(report.origin), ""]
    lines += [f"cluster: {p.verdict.word}: {p.message}" for p in report.cluster]
    for result in problems_first(report.workloads, lambda w: w.verdict):
        lines.append(f"{result.workload}: {result.verdict.word} (TensorFusion pods "
                     f"{result.seen_tf}/{result.expected_tf}, native {result.seen_native}/"
                     f"{result.expected_native})")
        lines += [f"  {p.verdict.word}: {p.subject}: {p.message}" for p in result.problems]
    off = [g for g in report.gpus if g.problem is not None]
    lines.append(f"GPUs: {len(report.gpus)} checked, {len(off)} disagree with the plan")
    lines += [f"  {g.problem.verdict.word}: {g.problem.subject} on {g.node or '?'}: "
              f"{g.problem.message}" for g in off if g.problem is not None]
    if report.savings is not None:
        lines.append(savings_line(report.savings))
        lines += [f"  warning: {report.savings.warning}"] if report.savings.warning else []
    lines += text_lines(report.gates)
    if report.verdict is Verdict.STOP:
        lines += ["", f"rollback: apply {report.rollback}"]
    return "\n".join(lines) + "\n"
