"""The recommendation as MigrationPolicy text: one ``rightsize`` and, for workloads that keep
a whole card, one ``takeover`` document per namespace, each workload's evidence a comment.

A document's ``match`` selects by namespace, kind and name; a GPU workload of the
manifests that the document would also select (a same-named workload of another kind
that is not recommended alike) makes the recommended one left out, never mis-sized.
The text is written here, then parsed back and compared with the intended data.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.recommend.core import Recommendation, Result
from tfpolicy.recommend.mapping import WorkloadId
from tfpolicy.recommend.pool import evidence as pool_evidence
from tfpolicy.recommend.recommender import Pair
from tfpolicy.records import Record
from tfpolicy.yamlio.emit import flow_text

_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


class Block(Record):
    """One policy document: its data and the text that says it, comments included."""

    data: dict[str, Any]
    text: str


def binary(value: int) -> str:
    """Bytes rounded up to whole MiB, in the largest binary suffix that divides exactly.

    TensorFusion keeps the truncated byte count (a BinarySI quantity); rounding up to
    a MiB asks for at most 1 MiB more and keeps the value readable in review.
    """
    value = -(-value // (1 << 20)) << 20
    for suffix, size in _BINARY:
        if value and value % size == 0:
            return f"{value // size}{suffix}"
    return str(value)


def resources(rec: Recommendation) -> dict[str, Any]:
    return {"tflops": _pair(rec.tflops, str), "vram": _pair(rec.vram, binary)}


def _pair(pair: Pair, shown: Any) -> dict[str, str]:
    return {"request": shown(pair.request), "limit": shown(pair.limit)}


def select(recs: list[Recommendation], others: set[WorkloadId]) -> tuple[
        list[Recommendation], list[tuple[WorkloadId, str]]]:
    """The recommendations one namespace document can select without selecting ``others``."""
    kept, dropped = list(recs), list[tuple[WorkloadId, str]]()
    while True:
        names, kinds = {r.id.name for r in kept}, {r.id.kind for r in kept}
        caught = {w.name for w in others if w.name in names and w.kind in kinds}
        if not caught:
            return kept, dropped
        dropped += [(r.id, "its match would also select a same-named workload sized apart")
                    for r in kept if r.id.name in caught]
        kept = [r for r in kept if r.id.name not in caught]


def document(stage: str, namespace: str, recs: list[Recommendation]) -> Block:
    spec: dict[str, Any] = {"stage": stage, "match": {
        "namespaces": [namespace], "kinds": sorted({r.id.kind for r in recs}),
        "names": sorted({r.id.name for r in recs})}}
    if stage == "rightsize":
        spec["resources"] = _largest(recs)
        spec["workloads"] = [{"match": {"kinds": [r.id.kind], "names": [r.id.name]},
                              "resources": resources(r)} for r in recs]
    data = {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MigrationPolicy",
            "metadata": {"name": f"{stage}-{namespace}"}, "spec": spec}
    return Block(data, _text(data, recs))


def _largest(recs: list[Recommendation]) -> dict[str, Any]:
    """The largest request and limit of the overrides: every workload has its own anyway."""
    tflops = Pair(max(r.tflops.request for r in recs), max(r.tflops.limit for r in recs))
    vram = Pair(max(r.vram.request for r in recs), max(r.vram.limit for r in recs))
    return {"tflops": _pair(tflops, str), "vram": _pair(vram, binary)}


def _text(data: dict[str, Any], recs: list[Recommendation]) -> str:
    spec = data["spec"]
    lines = ["---", "apiVersion: tfpolicy.dev/v1alpha1", "kind: MigrationPolicy",
             f"metadata: {flow_text(data['metadata'])}", "spec:",
             f"  stage: {spec['stage']}", f"  match: {flow_text(spec['match'])}"]
    if spec["stage"] == "takeover":
        lines += [f"  # {r.id.kind} {r.id.name} keeps a whole card: {r.takeover}" for r in recs]
        lines += [f"  #   {line}" for r in recs for line in evidence(r)]
        return "\n".join(lines) + "\n"
    lines += ["  # the largest of the per-workload values below; each workload has its own",
              f"  resources: {flow_text(spec['resources'])}", "  workloads:"]
    for rec, item in zip(recs, spec["workloads"], strict=True):
        lines += [f"    # {line}" for line in evidence(rec)]
        lines += [f"    - match: {flow_text(item['match'])}",
                  f"      resources: {flow_text(item['resources'])}"]
    return "\n".join(lines) + "\n"


def evidence(rec: Recommendation) -> list[str]:
    found = rec.evidence
    tflops = "/".join(f"{v:.1f}" for v in found.tflops)
    vram = "/".join(f"{v:.0f}" for v in found.vram_mib)
    lines = [f"{rec.id.kind} {rec.id.name}: {found.model}, {found.pods} pod(s), "
             f"{found.samples} samples",
             f"TFLOPS p50/p95/max {tflops}; VRAM MiB p50/p95/max {vram}"]
    if rec.pool is not None and rec.framework is not None:
        lines[-1] += " (the pool)"
        lines += pool_evidence(rec.pool, rec.framework)
    return lines + [note for note in rec.notes if note not in lines]


def header(result: Result, settings_line: str) -> str:
    lines = [f"# tfpolicy recommend: {settings_line}",
             "# TensorFusion's percentile recommender (docs/recommend.md, \"The recommender\"); "
             "values are per GPU."]
    left_out = sorted(result.left_out)
    if left_out:
        lines.append("# Left out (no recommendation):")
        lines += [f"#   {w}: {_one_line(reason)}" for w, reason in left_out]
    lines += [f"# Note: {_one_line(note)}" for note in result.notes]
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def blocks(result: Result, gpu_workloads: list[WorkloadId]) -> tuple[list[Block], Result]:
    """The documents per namespace (rightsize, then takeover), and the result with what
    could not be selected apart moved to ``left_out``."""
    out: list[Block] = []
    left_out = list(result.left_out)
    for namespace in sorted({r.id.namespace for r in result.recommended}):
        mine = [r for r in result.recommended if r.id.namespace == namespace]
        ids = {w for w in gpu_workloads if w.namespace == namespace}
        for stage, recs in (("rightsize", [r for r in mine if not r.takeover]),
                            ("takeover", [r for r in mine if r.takeover])):
            kept, dropped = select(recs, ids - {r.id for r in recs})
            left_out += dropped
            if kept:
                out.append(document(stage, namespace, kept))
    kept_ids = {w for b in out for w in _ids(b)}
    recommended = [r for r in result.recommended if r.id in kept_ids]
    return out, Result(recommended, left_out, result.notes)


def _ids(block: Block) -> list[WorkloadId]:
    match = block.data["spec"]["match"]
    namespace = match["namespaces"][0]
    if block.data["spec"]["stage"] == "takeover":
        return [WorkloadId(namespace, k, n) for k in match["kinds"] for n in match["names"]]
    return [WorkloadId(namespace, w["match"]["kinds"][0], w["match"]["names"][0])
            for w in block.data["spec"]["workloads"]]
