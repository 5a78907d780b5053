"""The workloads a rung's gates judge, as the snapshot shows them (docs/gates.md).

Each workload verify matched becomes a :class:`tfpolicy.gates.Subject`: its running pods,
each a TensorFusion pod or a native one by the webhook's marks (verify's own reading),
with the GPUs the scheduler gave it, its containers' restarts and last exit, its
``vram-limit`` and whether its framework reserves a memory pool up front
(:mod:`tfpolicy.frameworks`); the name prefixes of its ReplicaSets, so that series of its
pods before the rung are known as its own; and when the rung began for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tfpolicy.admission.keys import VRAM_LIMIT
from tfpolicy.frameworks.detect import detect
from tfpolicy.gates import Pod, Subject
from tfpolicy.inventory.fields import vram_of
from tfpolicy.records import replace
from tfpolicy.verify.cluster_snapshot import Snapshot, meta, name_of, namespace_of
from tfpolicy.verify.verdicts import Report, WorkloadResult

_GONE = ("Terminating", "Succeeded", "Failed", "Pending")


def subjects_of(report: Report, snapshot: Snapshot, started: int | None) -> tuple[Subject, ...]:
    """``started``: when the rung began (its commit), or None: then each workload's first
    TensorFusion pod's creation."""
    pods = {(namespace_of(p), name_of(p)): p for p in snapshot.of("Pod")}
    return tuple(_subject(w, pods, started) for w in report.workloads)


def last_ready(subjects: tuple[Subject, ...], snapshot: Snapshot) -> int | None:
    """The latest time a TensorFusion pod of the rung became ready (None: one has none)."""
    pods = {(namespace_of(p), name_of(p)): p for p in snapshot.of("Pod")}
    times = [_ready(pods.get((p.namespace, p.name), {})) for s in subjects for p in s.side(True)]
    if not times or any(t is None for t in times):
        return None
    return max(t for t in times if t is not None)


def _subject(result: WorkloadResult, pods: Mapping[tuple[str, str], Mapping[str, Any]],
             started: int | None) -> Subject:
    parts = result.workload.split("/")
    namespace = parts[1] if len(parts) >= 3 else ""
    running = [(line, pods.get((namespace, line.name), {})) for line in result.pods
               if line.status not in _GONE]
    members = tuple(replace(_pod(namespace, line.name, line.tensor_fusion, line.gpus, item),
                            policy_vram_limit=result.vram_limit if line.tensor_fusion else 0)
                    for line, item in running)
    made = [t for line, item in running if line.tensor_fusion
            if (t := epoch(_created(item))) is not None]
    began = started if started is not None else min(made, default=0)
    prefixes = tuple(f"{r.name}-" for r in result.replicasets)
    return Subject(result.workload, namespace, members, prefixes, began)


def _pod(namespace: str, name: str, tf: bool, gpus: tuple[str, ...],
         item: Mapping[str, Any]) -> Pod:
    statuses = (item.get("status") or {}).get("containerStatuses") or []
    restarts = sum(int(s.get("restartCount") or 0) for s in statuses if isinstance(s, Mapping))
    exits = [str(((s.get("lastState") or {}).get("terminated") or {}).get("reason") or "")
             for s in statuses if isinstance(s, Mapping)]
    limit = str(meta(item, "annotations").get(VRAM_LIMIT, "") or "")
    containers = (item.get("spec") or {}).get("containers") or []
    found = [detect(c, i) for i, c in enumerate(containers) if isinstance(c, Mapping)]
    pools = [f for f in found if f is not None and f.preallocates]
    return Pod(namespace, name, tf, gpus, restarts, next((e for e in exits if e), ""),
               vram_of(limit, f"Pod {namespace}/{name} {VRAM_LIMIT}") if limit else 0,
               bool(pools), preallocation=", ".join(f"{f.framework.name} {f.where}"
                                                     for f in pools))


def _created(item: Mapping[str, Any]) -> str:
    return str((item.get("metadata") or {}).get("creationTimestamp") or "")


def _ready(pod: Mapping[str, Any]) -> int | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if (isinstance(condition, Mapping) and condition.get("type") == "Ready"
                and condition.get("status") == "True"):
            return epoch(str(condition.get("lastTransitionTime") or ""))
    return None


def epoch(text: str) -> int | None:
    """An RFC 3339 time in Unix seconds; None when it is none."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(when.timestamp()) if when.tzinfo else None
