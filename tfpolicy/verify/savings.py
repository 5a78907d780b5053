"""What a rightsize step frees, measured in the cluster against the plan's promise
(docs/verify.md, "Savings").

Measured: a GPU of the snapshot is free when no pod holds it: no running pod names it
in its ``tensor-fusion.ai/gpu-ids``, the device plugin does not use it
(``status.usedBy``), it holds no partition, and its ``status.available`` is its whole
capacity (so a pod the snapshot does not show, of a namespace left out, still holds
its GPU). A GPU node is free when all its GPUs are. Promised: the plan's own figures
for the step (its idle GPUs, and its GPU nodes not in use), from the same simulation
``tfpolicy plan`` runs on the same input, never a second packing, taken over the pools
the snapshot's GPUs belong to (an inventory's ``devicePluginOnly`` nodes have no GPU
object, so they count on neither side).

Fewer freed than promised by more than a tenth (the scheduler spread the pods the plan
packs) is a warning: the step holds, its savings do not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tfpolicy.admission.keys import GPUPOOL
from tfpolicy.plan import PlanInput, Step, run_plan
from tfpolicy.plan.step_reports import Plan, StepReport
from tfpolicy.records import Record, replace
from tfpolicy.scheduler import Inventory
from tfpolicy.verify.cluster_snapshot import Snapshot, meta, name_of
from tfpolicy.verify.pods import PodState
from tfpolicy.verify.verdicts import GpuResult, Savings

FREEING = ("rightsize", "autoscale")  # the stages whose steps free GPUs
FAR = (9, 10)  # measured below 9/10 of the promise is far below
_SHORT = "fewer freed than the plan promises"
_MANAGED_BY = "tensor-fusion.ai/managed-by"  # a GPU's node, as the operator labels it


class Measured(Record):
    gpus: int  # GPUs in the snapshot
    gpus_free: int
    nodes_free: int
    tf_gpus: int  # GPUs the running TensorFusion pods name
    pools: frozenset[str] = frozenset()  # the GPUs' pools, by their gpupool label


def savings(given: PlanInput, step: Step, snapshot: Snapshot, states: Iterable[PodState],
            gpus: Iterable[GpuResult], rolling: bool = False) -> Savings | None:
    """None outside the steps that free capacity. ``rolling``: a workload still waits for
    its rollout, so the pods are not all where they will be."""
    if step.stage not in FREEING:
        return None
    seen = measure(snapshot, list(states), gpus)
    plan = run_plan(replace(given, consolidate=False, progress=None))
    found = promised(plan, step, seen, given.inventory)
    if rolling and found.warning.startswith(_SHORT):
        return replace(found, warning="measured while the rollout is in progress: verify "
                       "again once it is done")
    return found


class Promise(Record):
    """The plan's figures for a step, over the pools the snapshot shows."""

    gpus: int  # GPUs of those pools in the plan's inventory
    gpus_free: int
    nodes_free: int
    tf_gpus: int  # GPUs its TensorFusion pods take


def promised(plan: Plan, step: Step, seen: Measured, inventory: Inventory) -> Savings:
    report = plan.steps[step.number - 1]
    shown = f"step {step.number:02d} {step.name}"
    if report.usage is None or not report.fits:
        return Savings(seen.gpus_free, seen.nodes_free, 0, 0,
                       f"the plan's {shown} does not fit: it promises no savings to measure")
    promise = _promise(plan, report, inventory, seen.pools)
    found = Savings(seen.gpus_free, seen.nodes_free, promise.gpus_free, promise.nodes_free)
    if seen.gpus != promise.gpus:
        return replace(found, warning=f"the snapshot shows {seen.gpus} GPUs, the plan's "
                       f"inventory {promise.gpus}: the figures count different fleets")
    if not (_far_below(seen.gpus_free, promise.gpus_free)
            or _far_below(seen.nodes_free, promise.nodes_free)):
        return found
    return replace(found, warning=(
        f"{_SHORT} at {shown}: its TensorFusion pods hold {seen.tf_gpus} GPUs where the "
        f"plan packs them on {promise.tf_gpus}; the scheduler did not pack them as "
        "planned (the pool's placement mode, or pods placed before the others freed their "
        "cards)"))


def _promise(plan: Plan, report: StepReport, inventory: Inventory,
             pools: frozenset[str]) -> Promise:
    """The step's figures over ``pools``: a snapshot holds the operator's GPU objects, not
    the nodes the inventory keeps for the device plugin alone (``devicePluginOnly``)."""
    assert report.usage is not None
    counts = [c for c in report.usage.pools if c.pool in pools] or [report.usage.total]
    gpus = sum(c.idle + c.tensor_fusion + c.device_plugin for c in counts)
    free, ours = sum(c.idle for c in counts), sum(c.tensor_fusion for c in counts)
    if counts == [report.usage.total]:
        return Promise(gpus, free, plan.summary.nodes_total - report.nodes_in_use, ours)
    pool_of = {g.name: g.pool for g in inventory.gpus}
    inside = {n.name for n in inventory.nodes
              if n.gpus and all(pool_of.get(g) in pools for g in n.gpus)}
    busy = {node for w in report.workloads for node in w.nodes if node not in inside}
    busy |= {g.node for g in inventory.gpus if g.node not in inside
             and (g.external_tflops or g.external_vram or g.partitions)}
    return Promise(gpus, free, len(inside) - (report.nodes_in_use - len(busy)), ours)


def _far_below(measured: int, planned: int) -> bool:
    return measured * FAR[1] < planned * FAR[0]


def measure(snapshot: Snapshot, states: list[PodState],
            gpus: Iterable[GpuResult]) -> Measured:
    """``gpus``: the GPU ledger's reading of each GPU's status (its quantities parsed)."""
    held = {gpu for s in states if s.active for gpu in s.gpu_ids}
    ours = {gpu for s in states if s.active and s.tensor_fusion for gpu in s.gpu_ids}
    objects = {name_of(g): g for g in snapshot.of("GPU")}
    by_node: dict[str, list[bool]] = defaultdict(list)
    for gpu in gpus:
        item = objects.get(gpu.name, {})
        by_node[gpu.node or _node(item) or gpu.name].append(
            gpu.name not in held and _idle(gpu, item))
    free = [f for frees in by_node.values() for f in frees]
    pools = frozenset(str(meta(g, "labels").get(GPUPOOL) or "") for g in objects.values())
    return Measured(len(free), sum(free), sum(all(f) for f in by_node.values()),
                    len(ours & set(objects)), pools)


def _idle(gpu: GpuResult, item: Mapping[str, Any]) -> bool:
    """Held by no one the GPU itself knows of: not the device plugin's, no partition, its
    whole capacity available (the allocator resets it so on release)."""
    status = item.get("status") or {}
    if status.get("usedBy") not in (None, "", "tensor-fusion") or gpu.partitions:
        return False
    return (gpu.tflops, gpu.vram) == (gpu.capacity_tflops, gpu.capacity_vram)


def _node(gpu: Mapping[str, Any]) -> str:
    return str(meta(gpu, "labels").get(_MANAGED_BY) or "")
