"""The ReplicaSets of a Deployment or an Argo Rollout: which revision may still run pods.

A Deployment's newest revision is its current one; the others must be gone
or at zero once the rollout is over. An Argo Rollout says more when the
snapshot holds it (``kubectl get rollouts.argoproj.io``): ``status.stableRS``
is the pod-template hash of the stable ReplicaSet, ``status.currentPodHash``
the one being rolled out; they differ while a canary runs, and
``status.abort``/phase ``Degraded`` mean the rollout was aborted and the
stable revision took all the traffic back. The ReplicaSets and the pods
carry the hash as the label ``rollouts-pod-template-hash``; the revision is
the annotation ``rollout.argoproj.io/revision``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.verify.cluster_snapshot import Snapshot, controller_of, meta, name_of, namespace_of
from tfpolicy.verify.verdicts import Problem, ReplicaSetLine, Verdict

ROLLING = ("Deployment", "Rollout")
_REVISION = {"Deployment": "deployment.kubernetes.io/revision",
             "Rollout": "rollout.argoproj.io/revision"}
_HASH = "rollouts-pod-template-hash"


def replicasets(kind: str, namespace: str, name: str,
                snapshot: Snapshot) -> list[Mapping[str, Any]]:
    return [rs for rs in snapshot.of("ReplicaSet")
            if namespace_of(rs) == namespace and controller_of(rs) == (kind, name)]


def revisions(kind: str, namespace: str, name: str,
              snapshot: Snapshot) -> tuple[ReplicaSetLine, ...]:
    """The workload's ReplicaSets, oldest revision first, each with its role."""
    if kind not in ROLLING:
        return ()
    sets = sorted(replicasets(kind, namespace, name, snapshot),
                  key=lambda rs: (_revision(kind, rs), name_of(rs)))
    stable, current = _rollout_hashes(snapshot, namespace, name) if kind == "Rollout" else ("", "")
    lines = []
    for index, rs in enumerate(sets):
        role = _role(str(meta(rs, "labels").get(_HASH, "")), index == len(sets) - 1,
                     stable, current)
        lines.append(ReplicaSetLine(name_of(rs), _revision(kind, rs), _running(rs), role))
    return tuple(lines)


def _role(rs_hash: str, newest: bool, stable: str, current: str) -> str:
    if not stable:
        return "new" if newest else "old"
    if rs_hash == stable:
        return "stable"
    return "canary" if rs_hash == current else "old"


def _rollout_hashes(snapshot: Snapshot, namespace: str, name: str) -> tuple[str, str]:
    rollout = _rollout(snapshot, namespace, name)
    status = (rollout or {}).get("status") or {}
    return str(status.get("stableRS") or ""), str(status.get("currentPodHash") or "")


def _rollout(snapshot: Snapshot, namespace: str, name: str) -> Mapping[str, Any] | None:
    return next((r for r in snapshot.of("Rollout")
                 if (namespace_of(r), name_of(r)) == (namespace, name)), None)


def revision_problems(kind: str, namespace: str, name: str, lines: tuple[ReplicaSetLine, ...],
                      snapshot: Snapshot) -> list[Problem]:
    """Only the current revision may run pods (the old one gone or at zero): at 100 %, and
    under a cap too, where the new revision holds both the taken-over and the native pods."""
    found = _aborted(snapshot, namespace, name) if kind == "Rollout" else []
    canary = next((rs for rs in lines if rs.role == "canary"), None)
    for rs in lines:
        if rs.role == "old" and rs.replicas:
            found.append(Problem(Verdict.WAIT, f"ReplicaSet/{rs.name}",
                                 f"old revision {rs.revision} still runs {rs.replicas} pods"))
        elif rs.role == "stable" and canary is not None and rs.replicas and not found:
            found.append(Problem(Verdict.WAIT, f"ReplicaSet/{rs.name}",
                                 f"the canary is in progress: stable revision {rs.revision} "
                                 f"runs {rs.replicas} pods, canary revision {canary.revision} "
                                 f"runs {canary.replicas}"))
    return found


def _aborted(snapshot: Snapshot, namespace: str, name: str) -> list[Problem]:
    status = (_rollout(snapshot, namespace, name) or {}).get("status") or {}
    if status.get("abort") is not True and status.get("phase") != "Degraded":
        return []
    said = " ".join(str(status.get("message") or "no message").split())[:300]
    return [Problem(Verdict.STOP, f"Rollout/{name}",
                    f"the rollout was aborted, the stable revision is back: {said}")]


def _running(rs: Mapping[str, Any]) -> int:
    counts = ((rs.get("spec") or {}).get("replicas"), (rs.get("status") or {}).get("replicas"))
    return max((c for c in counts if isinstance(c, int) and not isinstance(c, bool)), default=0)


def _revision(kind: str, rs: Mapping[str, Any]) -> int:
    value = str(meta(rs, "annotations").get(_REVISION[kind], "0"))
    return int(value) if value.isdigit() else 0
