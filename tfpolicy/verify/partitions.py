"""Partitioned isolation on the GPU ledger: hardware partitions (MIG) and what they take.

A ``partitioned`` pod gets one partition of a template per GPU: the
allocator's ``bindPartition`` (NexusGPU/tensor-fusion
internal/gpuallocator/gpuallocator.go:3251) takes the template's share
from ``GPU.status.available`` (TFLOPS ``%.2f`` of computePercent × capacity
/ 100, VRAM ``memoryGigabytes`` Gi; ``internal/gpuallocator/
partitioned_scheduling.go:202`` ``CalculatePartitionResourceUsage``) and
records it in ``status.allocatedPartitions`` under the pod's UID with the
resolved ``templateId``; releasing the pod gives both back. The templates
are the chart's defaults (``charts/tensor-fusion/values.yaml:525``,
``providerConfigs.nvidia.virtualizationTemplates``).
A pod names one by id or by name (``1g.10gb``, ``mig-1g.10gb``), matched as
``internal/config/template_identifier.go`` does; a name shared by two
families is resolved by the GPU's VRAM (the family whose whole-GPU
template has that much memory).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tfpolicy.records import Record


class Template(Record):
    id: str
    name: str
    memory_gib: int
    compute_percent: str  # as the chart writes it; the operator parses it as a float64

    def tflops(self, capacity: int) -> int:
        """Milli-TFLOPS the partition takes from a GPU of ``capacity`` milli-TFLOPS."""
        share = f"{float(self.compute_percent) * (capacity / 1000) / 100.0:.2f}"
        return int(Decimal(share) * 1000)

    @property
    def vram(self) -> int:  # MiB
        return self.memory_gib * 1024

    @property
    def family(self) -> str:
        return "-".join(self.id.split("-")[:2])  # nv-80g, nv-h200, nv-40g, nv-a30


def _rows(family: str, rows: tuple[tuple[str, int, str], ...]) -> tuple[Template, ...]:
    return tuple(Template(f"nv-{family}-{name.replace('.', '-').replace('+', '-')}", name,
                         memory, percent) for name, memory, percent in rows)


_SEVENTH, _TWO, _THREE, _FOUR = "14.2857", "28.5714", "42.8571", "57.1428"
TEMPLATES: tuple[Template, ...] = (
    *_rows("80g", (("1g.10gb", 10, _SEVENTH), ("1g.10gb+me", 10, _SEVENTH),
                   ("1g.20gb", 20, _SEVENTH), ("2g.20gb", 20, _TWO), ("3g.40gb", 40, _THREE),
                   ("4g.40gb", 40, _FOUR), ("7g.80gb", 80, "100"))),
    *_rows("h200", (("1g.18gb", 18, _SEVENTH), ("1g.18gb+me", 18, _SEVENTH),
                    ("1g.35gb", 35, _SEVENTH), ("2g.35gb", 35, _TWO), ("3g.71gb", 71, _THREE),
                    ("4g.71gb", 71, _FOUR), ("7g.141gb", 141, "100"))),
    *_rows("40g", (("1g.5gb", 5, _SEVENTH), ("1g.5gb+me", 5, _SEVENTH), ("1g.10gb", 10, _SEVENTH),
                   ("2g.10gb", 10, _TWO), ("3g.20gb", 20, _THREE), ("4g.20gb", 20, _FOUR),
                   ("7g.40gb", 40, "100"))),
    *_rows("a30", (("1g.6gb", 6, "25"), ("2g.12gb", 12, "50"), ("4g.24gb", 24, "100"))),
)


def canonical(value: str) -> str:
    """Lower case, ``._ /`` as ``-``, no doubled or edge dashes (template_identifier.go)."""
    return re.sub(r"-+", "-", re.sub(r"[._ /]", "-", value.strip().lower())).strip("-")


def matches(template: Template, requested: str) -> bool:
    asked = canonical(requested).removeprefix("mig-")
    return bool(asked) and asked in (canonical(template.id), canonical(template.name))


def find(requested: str, vram: int) -> Template | None:
    """The template ``requested`` names on a GPU of ``vram`` MiB; None if none or ambiguous."""
    found = [t for t in TEMPLATES if matches(t, requested)]
    if len(found) > 1:
        whole = {t.family: t.memory_gib for t in TEMPLATES if t.compute_percent == "100"}
        found = [t for t in found if abs(whole[t.family] * 1024 - vram) <= 2048]
    return found[0] if len(found) == 1 else None


class Placed(Record):
    """A partitioned pod the scheduler put on a GPU (its ``gpu-ids``)."""

    pod: str  # namespace/name
    uid: str
    requested: str  # its partition-id annotation ('' when the scheduler was to choose)


def ledger(placed: list[Placed], status: Mapping[str, Any], capacity: tuple[int, int]
           ) -> tuple[int, int, list[str]]:
    """What the GPU's partitions take (milli-TFLOPS, MiB), and what disagrees with its pods."""
    allocated = _allocated(status)
    tflops = vram = 0
    problems = []
    for pod in placed:
        entry = allocated.get(pod.uid)
        if entry is None:
            problems.append(f"{pod.pod} is partitioned, the GPU reports no partition for it")
            continue
        template = find(entry[1], capacity[1])
        if template is None:
            problems.append(f"{pod.pod}: partition template {entry[1]!r} is none of the chart's")
            continue
        if pod.requested and not matches(template, pod.requested):
            problems.append(f"{pod.pod} asks partition {pod.requested!r}, the GPU gave it "
                            f"{template.id}")
        tflops, vram = tflops + template.tflops(capacity[0]), vram + template.vram
    uids = {p.uid for p in placed}
    problems += [f"partition {template} of {pod}, which does not run on this GPU, is not "
                 "released" for uid, (pod, template) in sorted(allocated.items())
                 if uid not in uids]
    return tflops, vram, problems


def shown(status: Mapping[str, Any]) -> tuple[str, ...]:
    """``namespace/pod: templateId`` per partition the GPU reports."""
    return tuple(sorted(f"{pod}: {template}" for pod, template in _allocated(status).values()))


def _allocated(status: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Pod UID → (namespace/pod, templateId), from ``status.allocatedPartitions``."""
    found = {}
    entries = status.get("allocatedPartitions")
    for uid, entry in (entries.items() if isinstance(entries, Mapping) else ()):
        if isinstance(entry, Mapping):
            pod = f"{entry.get('namespace', '')}/{entry.get('podName', '')}"
            found[str(entry.get("podUid") or uid)] = (pod, str(entry.get("templateId", "")))
    return found
