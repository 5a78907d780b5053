"""``tfpolicy admission``'s report: one block per pod template as text, or a stable JSON record."""

from __future__ import annotations

from typing import Any

from tfpolicy.admission import AllocationRequest
from tfpolicy.plan.admission_report import Admitted
from tfpolicy.records import asdict
from tfpolicy.render import visible


def admitted_text(items: list[Admitted]) -> str:
    """Each line is one line whatever the names in it: their controls are shown as text."""
    blocks = ["\n".join(visible(line) for line in _block(item)) for item in items]
    rejected = sum(i.admission.rejected for i in items)
    tail = f"{len(items)} pod templates, {rejected} rejected"
    return "\n\n".join([*blocks, tail]) + "\n"


def _block(item: Admitted) -> list[str]:
    a = item.admission
    lines = [f"{item.key}: {a.decision.value} ({item.file})"]
    if a.rejected:
        lines.append(f"  rejected: {a.error}")
    elif a.reason:
        lines.append(f"  reason: {a.reason}")
    if a.error and not a.rejected:
        lines.append(f"  webhook error: {a.error}")
    if item.taken_over is not None and item.replicas is not None \
            and item.taken_over < item.replicas:
        lines.append(f"  pods: {item.taken_over} of {item.replicas} taken over "
                     "(enabled-replicas); the rest are admitted unmutated")
    if a.allocation is not None:
        lines.append(f"  allocation: {_allocation(a.allocation)}")
        lines.extend(f"  scheduler: the {side} carries both TFLOPS and compute-percent; the "
                     "scheduler cannot read it and reserves nothing for it"
                     for side in a.allocation.unreadable)
    lines.extend(f"  {change}" for change in a.changes)
    lines.extend(f"  note: {note}" for note in a.notes)
    return lines


def _allocation(r: AllocationRequest) -> str:
    parts = [f"pool {r.pool}", f"{r.gpu_count} GPU", f"isolation {r.isolation}", f"qos {r.qos}"]
    if r.tflops_request or r.tflops_limit:
        parts.append(f"TFLOPS {r.tflops_request / 1000:g}/{r.tflops_limit / 1000:g}")
    if r.compute_milli_percent_request or r.compute_milli_percent_limit:
        parts.append(f"compute {r.compute_milli_percent_request / 1000:g}%/"
                     f"{r.compute_milli_percent_limit / 1000:g}%")
    if r.vram_request or r.vram_limit:
        parts.append(f"VRAM {r.vram_request}Mi/{r.vram_limit}Mi")
    parts.extend(f"{k} {v}" for k, v in (("model", r.gpu_model), ("vendor", r.vendor)) if v)
    return ", ".join(parts) + " (per GPU, request/limit)"


def admitted_dict(item: Admitted) -> dict[str, Any]:
    a = item.admission
    return {
        "file": item.file, "kind": item.kind, "namespace": item.namespace, "name": item.name,
        "template": item.template, "decision": a.decision.value, "reason": a.reason,
        "error": a.error, "replicas": item.replicas, "takenOver": item.taken_over,
        "changes": [{"op": c.kind.value, "path": c.path, "old": c.old, "new": c.new}
                    for c in a.changes],
        "allocation": None if a.allocation is None else _allocation_dict(a.allocation),
        "notes": list(a.notes), "podFile": item.file_name if a.pod is not None else None,
        **({"generateName": item.generate_name} if item.generate_name else {}),
    }


def _allocation_dict(r: AllocationRequest) -> dict[str, Any]:
    raw = asdict(r)
    raw["gpu_indices"] = list(r.gpu_indices)
    return {_camel(k): v for k, v in raw.items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)
