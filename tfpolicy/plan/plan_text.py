"""A plan as text: one block per step, then the summary (same facts as the JSON)."""

from __future__ import annotations

from tfpolicy.plan.plan_json import cost_change
from tfpolicy.plan.step_reports import Misfit, Plan, Status, StepReport, Summary
from tfpolicy.render import visible
from tfpolicy.scheduler import Consolidation, PoolUsage, Usage

_MIB_PER_GIB = 1024
_SHOWN = 10


def as_text(plan: Plan) -> str:
    """Warnings are printed at the first step that has them (the JSON repeats them per step).
    Each line stays one line whatever the names in it: their controls are shown as text."""
    lines, seen = [_header(plan)], set[str]()
    for step in (plan.start, *plan.steps):
        lines.extend(_step(step, seen))
        seen.update(step.warnings)
    lines.extend(_summary(plan.summary))
    lines.extend(_consolidation(plan.consolidation))
    return "\n".join(visible(line) for line in lines) + "\n"


def _header(plan: Plan) -> str:
    s = plan.summary
    verdict = "every step fits" if plan.fits else "a step does not fit"
    return (f"plan: {len(plan.steps)} steps on {s.gpus_total} GPUs in {s.nodes_total} nodes: "
            f"{verdict}")


def _title(step: StepReport) -> str:
    label = "start (the manifests as they are)" if step.number == 0 else (
        f"step {step.number:02d} {step.name}")
    return f"{label}: {step.status.value}"


def _step(step: StepReport, seen: set[str]) -> list[str]:
    lines = ["", _title(step)]
    if step.status is Status.NOT_RUN:
        return lines
    if step.rolled:
        lines.append(f"  rolls {len(step.rolled)} workloads: {capped(step.rolled, _SHOWN)}")
    pods = step.pods
    lines.append(f"  pods: {pods.tensor_fusion} TensorFusion, {pods.device_plugin} device plugin"
                 + (f", {pods.no_gpu} with no GPU" if pods.no_gpu else ""))
    lines.extend(_moved(step))
    lines.append(f"  GPUs: {_usage(step.usage)}; nodes in use {step.nodes_in_use}")
    lines.extend(f"  pool {_pool(p)}" for p in step.pools)
    lines.extend(f"  limits oversubscribed: GPU {g.gpu} TFLOPS {_t(g.limit_tflops)}/"
                 f"{_t(g.virtual_tflops)}, VRAM {_g(g.limit_vram)}/{_g(g.virtual_vram)} GiB"
                 for g in step.oversubscribed[:5])
    if len(step.oversubscribed) > 5:
        lines.append(f"  … and {len(step.oversubscribed) - 5} more oversubscribed GPUs")
    lines.extend(_misfits(step))
    lines.extend(_warnings([w for w in step.warnings if w not in seen]))
    return lines


def _moved(step: StepReport) -> list[str]:
    """Workloads on TensorFusion, where the rung moves the uncapped kinds whole."""
    moved = step.moved
    if moved is None:
        return []
    lines = [f"  workloads: {moved.tensor_fusion} of {moved.total} on TensorFusion"]
    if moved.whole:
        lines.append(f"  moved whole (enabled-replicas is not enforced on their kind): "
                     f"{capped(moved.whole, _SHOWN)}")
    if moved.waiting:
        lines.append(f"  wait for a later rung, left as they are: "
                     f"{capped(moved.waiting, _SHOWN)}")
    lines.append("  (which workloads: the first of this input's, label tfpolicy.dev/canary=first, "
                 "then namespace, kind, name; docs/stages.md)")
    return lines


def _misfits(step: StepReport) -> list[str]:
    """One line per reason; the pods that wait for it, capped (all of them in the JSON)."""
    groups: dict[str, list[Misfit]] = {}
    for misfit in step.unschedulable:
        groups.setdefault(misfit.message, []).append(misfit)
    lines = []
    ordered = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
    for message, misfits in ordered[:_SHOWN]:
        if len(misfits) == 1:
            lines.extend(_misfit(misfits[0]))
            continue
        lines.append(f"  does not fit: {len(misfits)} workloads wait: {message}")
        lines.append(f"    pods: {capped([f'{m.pod} of {m.workload}' for m in misfits], 5)}")
    if len(ordered) > _SHOWN:
        lines.append(f"  … and {len(ordered) - _SHOWN} more reasons")
    return lines


def _misfit(misfit: Misfit) -> list[str]:
    pod = f"pod {misfit.pod} of " if misfit.pod else ""
    lines = [f"  does not fit: {pod}{misfit.workload}: {misfit.message}"]
    if misfit.diagnosis is not None:
        lines.append(f"    during its rollout: {misfit.old_running} old pods still running, "
                     f"{misfit.new_running} new pods placed")
    return lines


def _warnings(warnings: list[str]) -> list[str]:
    """Warnings read ``<workload>: <text>``; the same text for many workloads is one line."""
    groups: dict[str, list[str]] = {}
    for warning in warnings:
        key, _, text = warning.partition(": ")
        groups.setdefault(text if text else key, []).append(key if text else "")
    lines = []
    for text, keys in sorted(groups.items()):
        if len(keys) == 1:
            lines.append(f"  warning: {keys[0]}: {text}" if keys[0] else f"  warning: {text}")
        else:
            lines.append(f"  warning ({len(keys)} workloads): {text}: {capped(keys, 5)}")
    return lines


def _usage(used: Usage | None) -> str:
    if used is None:
        return "-"
    t = used.total
    return f"{t.device_plugin} device plugin, {t.tensor_fusion} TensorFusion, {t.idle} idle"


def _t(milli: int) -> str:
    return f"{milli / 1000:g}"


def _g(mib: int) -> str:
    return f"{mib / _MIB_PER_GIB:g}"


def _pool(p: PoolUsage) -> str:
    flag = " (limits oversubscribed)" if p.oversubscribed else ""
    return (f"{p.pool}: requested TFLOPS {_t(p.requested_tflops)}/{_t(p.tflops)}, "
            f"VRAM {_g(p.requested_vram)}/{_g(p.vram)} GiB; limits TFLOPS {_t(p.limit_tflops)}/"
            f"{_t(p.virtual_tflops)}, VRAM {_g(p.limit_vram)}/{_g(p.virtual_vram)} GiB{flag}")


def _summary(s: Summary) -> list[str]:
    return ["", "summary:",
            f"  GPUs in use: {s.gpus_before} → {s.gpus_after} ({s.gpus_freed} freed)",
            f"  nodes in use: {s.nodes_before} → {s.nodes_after} ({s.nodes_freed} freed)",
            f"  cost per hour of the GPUs in use: ${s.cost_before / 1e6:.2f} → "
            f"${s.cost_after / 1e6:.2f} ({cost_change(s)})",
            *_not_migrated(s)]


def _not_migrated(s: Summary) -> list[str]:
    """GPU requests no step migrates: their GPUs are counted in use after as before."""
    total = sum(n for _, n in s.not_migrated)
    if not total:
        return []
    by = ", ".join(f"{n} {rule}" for rule, n in s.not_migrated)
    return [f"  GPU requests not migrated: {total} ({by}); none of their GPUs is counted "
            "as freed, and the pods of those in no pod template tfpolicy knows are not "
            "placed, so a node they run on may not be removable (tfpolicy check says where "
            "and why)"]


def _consolidation(c: Consolidation | None) -> list[str]:
    if c is None:
        return []
    lines = ["", "consolidation (drain the nodes that can be emptied, PDB-aware):",
             f"  nodes in use: {c.nodes_before} → {c.nodes_after} ({len(c.removed)} removable; "
             f"lower bound {c.lower_bound})",
             f"  frees {c.gpus_freed} GPUs, ${c.cost_freed / 1e6:.2f} per hour, "
             f"with {c.evictions} evictions"]
    if c.blocked_by_budget:
        lines.append(f"  kept by a PodDisruptionBudget: {c.blocked_by_budget} nodes")
    if c.removed:
        lines.append(f"  removable: {capped(c.removed, _SHOWN)}")
    return lines


def capped(items: tuple[str, ...] | list[str], shown: int) -> str:
    """The first ``shown`` items, then "… and N more" (JSON keeps all of them)."""
    more = f", … and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more
