"""``tfpolicy verify``'s core: the live cluster against one step of the plan
(docs/verify.md).

Pure: the plan's input, a step number and a :class:`Snapshot` in; a
:class:`Report` out, with a verdict per workload, per GPU and for the step
(ready / wait / stop). Entry points: :func:`verify`, :func:`snapshot_of`;
:mod:`tfpolicy.verify.report_render` prints a report as text or JSON.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tfpolicy.plan import PlanInput, Step
from tfpolicy.verify.closest import closest_step
from tfpolicy.verify.cluster_snapshot import Snapshot, snapshot_of
from tfpolicy.verify.diagnose import dynamic_gpus, explain_pending, gpu_pools
from tfpolicy.verify.expect import Expected, StepPlan, expect
from tfpolicy.verify.gpu_verdicts import check_gpus
from tfpolicy.verify.pods import PodState
from tfpolicy.verify.savings import savings
from tfpolicy.verify.shares import Share
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
from tfpolicy.verify.workloads import check_workloads

__all__ = ["Expected", "GpuResult", "Origin", "Problem", "Report", "Savings", "Shows", "Snapshot",
           "StepPlan", "Verdict", "WorkloadResult", "origin_of", "rollback_of", "snapshot_of",
           "verify"]

NO_OPERATOR = ("the TensorFusion operator is not installed: the snapshot has no GPUPool, "
               "GPUNode or GPU object (install the chart before the takeover step)")


def verify(given: PlanInput, step: int | None, snapshot: Snapshot, source: str = "",
           wall: str = "") -> Report:
    """``source`` says where the snapshot comes from (its files, or the kubectl context);
    ``wall``: the wall clock when it was taken live, which bounds its time."""
    planned = expect(given, step)
    workloads, states = check_workloads(planned.workloads, snapshot)
    requests = {e.key: e.request for e in planned.workloads}
    gpus = check_gpus(snapshot, states, requests)
    pools, dynamic = gpu_pools(snapshot.of("GPU")), dynamic_gpus(snapshot.of("GPU"))
    workloads = tuple(explain_pending(w, requests.get(w.workload), gpus, pools, dynamic)
                      for w in workloads)
    cluster = () if snapshot.operator_installed else (Problem(Verdict.STOP, "cluster",
                                                              NO_OPERATOR),)
    shown = f"{planned.step.number:02d} {planned.step.name}"
    rolling = any(p.verdict is Verdict.WAIT for w in workloads for p in w.problems)
    found = savings(given, planned.step, snapshot, (s for s, _ in states.values()), gpus,
                    rolling)
    shows = closest_step(given, planned, workloads, _shares(states.values()))
    return Report(shown, rollback_of(planned.previous), workloads, gpus, cluster,
                  origin_of(snapshot, source, wall), shows=shows, savings=found)


def _shares(states: Iterable[tuple[PodState, str]]) -> dict[str, list[Share]]:
    """Per workload, the shares its TensorFusion pods hold (those ``seen_tf`` counts)."""
    found: dict[str, list[Share]] = defaultdict(list)
    for state, key in states:
        if state.tensor_fusion and state.share is not None and (state.active or state.done):
            found[key].append(state.share)
    return found


def origin_of(snapshot: Snapshot, source: str, wall: str = "") -> Origin:
    """Which cluster the snapshot shows: its pools and GPU nodes, as objects or as the GPUs'
    own labels (a dump of GPUs alone names both)."""
    gpus = snapshot.of("GPU")
    pools = {str(p["metadata"]["name"]) for p in snapshot.of("GPUPool")}
    pools |= {pool for pool in gpu_pools(gpus).values() if pool}
    nodes = {str(n["metadata"]["name"]) for n in snapshot.of("GPUNode")}
    nodes |= {node for node in (_node_of(g) for g in gpus) if node}
    clock = snapshot.clock(wall)
    return Origin(source, clock.time, tuple(sorted(pools)), len(nodes), clock.outliers,
                  clock.rule)


def _node_of(gpu: Mapping[str, Any]) -> str:
    selector = (gpu.get("status") or {}).get("nodeSelector") or {}
    return str(selector.get("kubernetes.io/hostname", "")) if isinstance(selector, Mapping) else ""


def rollback_of(previous: Step | None) -> str:
    """The policy that undoes the step: the previous step's, or the built-in rollback."""
    if previous is None:
        return "-p rollback (the built-in rollback policy: every pod back to the device plugin)"
    return (f"the policy of step {previous.number:02d} ({previous.name}): "
            f"{previous.number:02d}-{previous.name}.yaml from `tfpolicy plan --emit-policies`")
