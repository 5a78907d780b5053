"""Per workload: the pods the cluster runs against the pods the plan expects.

Pods are tied to a workload through their controller ownerReference, a
ReplicaSet through its own to its Deployment, a Job named
``<cronjob>-<minutes>`` to its CronJob (the CronJob controller's naming);
a kind with several pod templates (PyTorchJob) through the replica-type label.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from tfpolicy.verify.expect import Expected
from tfpolicy.verify.pods import PodState, event_line, pod_state
from tfpolicy.verify.records import PodLine, Problem, ReplicaSetLine, Verdict, WorkloadResult
from tfpolicy.verify.snapshot import Snapshot, controller_of, name_of, namespace_of

_CRON_JOB = re.compile(r"^(?P<cron>.+)-[0-9]+$")
_REPLICA_TYPE = "training.kubeflow.org/replica-type"
_REVISION = "deployment.kubernetes.io/revision"
Events = Mapping[tuple[str, str, str], list[Mapping[str, Any]]]


def check_workloads(expected: tuple[Expected, ...], snapshot: Snapshot
                    ) -> tuple[tuple[WorkloadResult, ...], dict[str, tuple[PodState, str]]]:
    """The result per workload, and every pod's state with its workload key ('' if none)."""
    events = events_by_object(snapshot)
    owners = {(namespace_of(rs), name_of(rs)): controller_of(rs)
              for rs in snapshot.of("ReplicaSet")}
    by_key: dict[str, list[PodState]] = defaultdict(list)
    states: dict[str, tuple[PodState, str]] = {}
    for pod in snapshot.of("Pod"):
        state = pod_state(pod, events.get(("Pod", namespace_of(pod), name_of(pod)), []))
        key = _workload_of(pod, expected, owners)
        states[f"{namespace_of(pod)}/{state.name}"] = (state, key)
        by_key[key].append(state)
    results = tuple(_result(e, by_key[e.key], snapshot, events) for e in expected)
    return results, states


def events_by_object(snapshot: Snapshot) -> Events:
    found: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for event in snapshot.of("Event"):
        about = event.get("involvedObject") or {}
        found[(str(about.get("kind")), str(about.get("namespace") or namespace_of(event)),
               str(about.get("name")))].append(event)
    return found


def _workload_of(pod: Mapping[str, Any], expected: tuple[Expected, ...],
                 owners: Mapping[tuple[str, str], tuple[str, str] | None]) -> str:
    owner, ns = controller_of(pod), namespace_of(pod)
    if owner is None:
        return ""
    kind, name = owner
    if kind == "ReplicaSet" and (parent := owners.get((ns, name))) is not None:
        kind, name = parent
    found = [e for e in expected if (e.kind, e.namespace, e.name) == (kind, ns, name)]
    if not found and kind == "Job" and (cron := _CRON_JOB.match(name)):
        found = [e for e in expected
                 if (e.kind, e.namespace, e.name) == ("CronJob", ns, cron["cron"])]
    if len(found) > 1:
        role = str(((pod.get("metadata") or {}).get("labels") or {}).get(_REPLICA_TYPE, ""))
        found = [e for e in found if e.key.rsplit("/", 1)[-1].lower() == role.lower()]
    return found[0].key if len(found) == 1 else ""


def _result(expected: Expected, pods: list[PodState], snapshot: Snapshot,
            events: Events) -> WorkloadResult:
    live = [p for p in pods if p.active or p.done]  # a finished Job's pods count as taken over
    tf = sum(p.tensor_fusion for p in live)
    problems = [p.problem for p in pods if p.problem is not None]
    problems += _rejections(expected, snapshot, events)
    problems += _unmutated(expected, [p for p in live if p.unmutated])
    problems += _counts(expected, tf, len(live) - tf, problems)
    revisions = _revisions(expected, snapshot)
    problems += _old_replicasets(revisions)
    lines = tuple(PodLine(p.name, p.tensor_fusion, p.status, p.gpu_ids) for p in pods)
    return WorkloadResult(expected.key, expected.tensor_fusion, expected.native, tf,
                          len(live) - tf, tuple(sorted(problems, key=_problem_order)), lines,
                          revisions)


def _rejections(expected: Expected, snapshot: Snapshot, events: Events) -> list[Problem]:
    """FailedCreate events of the workload's pod-creating controllers that name a webhook."""
    found = []
    if expected.error:
        found.append(Problem(Verdict.STOP, expected.key,
                             f"the plan expects the webhook to reject its pods: {expected.error}"))
    for kind, name in _creators(expected, snapshot):
        for event in events.get((kind, expected.namespace, name), []):
            text = event_line(event)
            if event.get("reason") == "FailedCreate" and "admission webhook" in text:
                found.append(Problem(Verdict.STOP, f"{kind}/{name}",
                                     f"pod creation rejected: {text}"))
    return found


def _unmutated(expected: Expected, pods: list[PodState]) -> list[Problem]:
    """Labelled pods the webhook let through unchanged, beyond those over the cap."""
    if len(pods) <= expected.native:
        return []
    names = ", ".join(p.name for p in pods[:3]) + (", …" if len(pods) > 3 else "")
    return [Problem(Verdict.STOP, expected.key,
                    f"{len(pods)} pods labelled tensor-fusion.ai/enabled run without the "
                    f"webhook's marks ({names}), the plan expects {expected.native} over the "
                    "enabled-replicas cap: the webhook did not take them over")]


def _creators(expected: Expected, snapshot: Snapshot) -> list[tuple[str, str]]:
    """The objects whose events say a pod could not be created."""
    if expected.kind != "Deployment":
        return [(expected.kind, expected.name)]
    return [("ReplicaSet", name_of(rs)) for rs in _replicasets(expected, snapshot)]


def _replicasets(expected: Expected, snapshot: Snapshot) -> list[Mapping[str, Any]]:
    return [rs for rs in snapshot.of("ReplicaSet")
            if namespace_of(rs) == expected.namespace
            and controller_of(rs) == ("Deployment", expected.name)]


def _counts(expected: Expected, tf: int, native: int, known: list[Problem]) -> list[Problem]:
    if tf > expected.tensor_fusion:
        return [Problem(Verdict.STOP, expected.key, f"{tf} TensorFusion pods, the plan expects "
                        f"{expected.tensor_fusion}: the enabled-replicas cap did not hold")]
    if tf < expected.tensor_fusion and not known:
        return [Problem(Verdict.WAIT, expected.key, f"{tf} of {expected.tensor_fusion} "
                        "TensorFusion pods so far: the rollout is in progress")]
    if native > expected.native and not known:
        return [Problem(Verdict.WAIT, expected.key, f"{native} native GPU pods still run, "
                        f"the plan expects {expected.native}")]
    return []


def _revisions(expected: Expected, snapshot: Snapshot) -> tuple[ReplicaSetLine, ...]:
    """The workload's ReplicaSets, oldest revision first."""
    if expected.kind != "Deployment":
        return ()
    sets = sorted(_replicasets(expected, snapshot), key=lambda rs: (_revision(rs), name_of(rs)))
    return tuple(ReplicaSetLine(name_of(rs), _revision(rs), _running(rs), i == len(sets) - 1)
                 for i, rs in enumerate(sets))


def _running(rs: Mapping[str, Any]) -> int:
    return max(int((rs.get("spec") or {}).get("replicas") or 0),
               int((rs.get("status") or {}).get("replicas") or 0))


def _old_replicasets(revisions: tuple[ReplicaSetLine, ...]) -> list[Problem]:
    """Only the newest revision may run pods (the old one is gone or at zero): at 100 %, and
    under a cap too, where the new revision holds both the taken-over and the native pods."""
    return [Problem(Verdict.WAIT, f"ReplicaSet/{rs.name}",
                    f"old revision {rs.revision} still runs {rs.replicas} pods")
            for rs in revisions if not rs.newest and rs.replicas]


def _revision(rs: Mapping[str, Any]) -> int:
    value = str(((rs.get("metadata") or {}).get("annotations") or {}).get(_REVISION, "0"))
    return int(value) if value.isdigit() else 0


def _problem_order(problem: Problem) -> tuple[int, str, str]:
    return -problem.verdict, problem.subject, problem.message
