"""Per workload: the pods the cluster runs against the pods the plan expects.

Pods are tied to a workload, and to one of its templates, by
:mod:`tfpolicy.verify.matching`; each template gets its own verdict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from tfpolicy.verify.cluster_snapshot import Snapshot, controller_of, name_of, namespace_of
from tfpolicy.verify.expect import Expected
from tfpolicy.verify.matching import RAY_HEAD_GROUP, Owners, candidates, pod_role, ray_parent
from tfpolicy.verify.pods import PodState, event_line, pod_state
from tfpolicy.verify.replicasets import ROLLING, replicasets, revision_problems, revisions
from tfpolicy.verify.runs import shared_prefix, with_runs
from tfpolicy.verify.share_checks import at_step, share_problems, with_stale
from tfpolicy.verify.verdicts import PodLine, Problem, Verdict, WorkloadResult

# The ReplicaSet, StatefulSet and Job controllers', and the Kubeflow training operator's.
_CREATE_FAILED = ("FailedCreate", "FailedCreatePod")
# How the API server names TensorFusion's pod webhook in a failed creation's message.
TENSOR_FUSION_WEBHOOK = ("mpod.tensor-fusion.ai", "/mutate-v1-pod")
Events = Mapping[tuple[str, str, str], list[Mapping[str, Any]]]


def check_workloads(expected: tuple[Expected, ...], snapshot: Snapshot
                    ) -> tuple[tuple[WorkloadResult, ...], dict[str, tuple[PodState, str]]]:
    """The result per workload, and every pod's state with its workload key ('' if none)."""
    events = events_by_object(snapshot)
    owners = {(namespace_of(rs), name_of(rs)): controller_of(rs)
              for rs in snapshot.of("ReplicaSet")}
    expected = with_runs(expected, snapshot, owners)
    keyed = {e.key: e for e in expected}
    by_key: dict[str, list[PodState]] = defaultdict(list)
    states: dict[str, tuple[PodState, str]] = {}
    for pod in snapshot.of("Pod"):
        state = pod_state(pod, events.get(("Pod", namespace_of(pod), name_of(pod)), []))
        key = _workload_of(pod, expected, owners)
        state = with_stale(state, keyed.get(key))
        states[f"{namespace_of(pod)}/{state.name}"] = (state, key)
        by_key[key].append(state)
    results = tuple(_result(e, by_key[e.key], snapshot, events, shared_prefix(e, expected))
                    for e in expected)
    return results, states


def events_by_object(snapshot: Snapshot) -> Events:
    found: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for event in snapshot.of("Event"):
        about = event.get("involvedObject") or {}
        found[(str(about.get("kind")), str(about.get("namespace") or namespace_of(event)),
               str(about.get("name")))].append(event)
    return found


def _workload_of(pod: Mapping[str, Any], expected: tuple[Expected, ...], owners: Owners) -> str:
    ns = namespace_of(pod)
    found: list[Expected] = []
    for kind, name in candidates(pod, owners, ns):
        found = [e for e in expected if (e.kind, e.namespace, e.name) == (kind, ns, name)]
        if found:
            break
    role = pod_role(pod)
    if role and any(e.role for e in found):  # one of the object's templates, maybe none
        found = [e for e in found if e.role == role]
    return found[0].key if len(found) == 1 else ""


def _result(expected: Expected, pods: list[PodState], snapshot: Snapshot,
            events: Events, shared: list[Problem]) -> WorkloadResult:
    live = [p for p in pods if p.active or p.done]  # a finished Job's pods count as taken over
    tf = sum(p.tensor_fusion for p in live)
    problems = shared + [p.problem for p in pods if p.problem is not None]
    problems += _rejections(expected, snapshot, events)
    problems += _unmutated(expected, [p for p in live if p.unmutated])
    problems += _seen_gpus(expected, [p for p in live if p.tensor_fusion and p.active],
                           {name_of(g) for g in snapshot.of("GPU")})
    sets = revisions(expected.kind, expected.namespace, expected.name, snapshot)
    problems += share_problems(expected, pods, {r.name: r.role for r in sets})
    problems += _counts(expected, at_step(pods), len(live) - tf, problems)
    problems += revision_problems(expected.kind, expected.namespace, expected.name, sets,
                                  snapshot)
    lines = tuple(PodLine(p.name, p.tensor_fusion, p.status, p.gpu_ids) for p in pods)
    limit = expected.request.vram_limit if expected.request is not None else 0
    return WorkloadResult(expected.key, expected.tensor_fusion, expected.native, tf,
                          len(live) - tf, tuple(sorted(problems, key=_problem_order)), lines,
                          sets, limit)


def _rejections(expected: Expected, snapshot: Snapshot, events: Events) -> list[Problem]:
    """FailedCreate events of the workload's pod-creating controllers that name a webhook."""
    found = []
    if expected.error:
        found.append(Problem(Verdict.STOP, expected.key,
                             f"the plan expects the webhook to reject its pods: {expected.error}"))
    creators = _creators(expected, snapshot) + _ray_clusters(expected, events)
    for kind, name in creators:
        for event in events.get((kind, expected.namespace, name), []):
            if not _failed_create(expected, event.get("reason")):
                continue
            whole, text = str(event.get("message") or ""), event_line(event)
            if _tensor_fusion_webhook(whole) or "admission webhook" in whole:
                found.append(Problem(Verdict.STOP, f"{kind}/{name}",
                                     f"pod creation rejected: {text}"))
    return found


def _tensor_fusion_webhook(message: str) -> bool:
    """The operator's pod webhook, by its registered name or its path (the chart's
    ``admission-webhooks/mutating-webhook.yaml``), whatever the error: a denial, a timeout,
    a refused connection."""
    return any(mark in message for mark in TENSOR_FUSION_WEBHOOK)


def _ray_clusters(expected: Expected, events: Events) -> list[tuple[str, str]]:
    """The clusters a RayJob or RayService made, as their events name them."""
    if expected.kind not in ("RayJob", "RayService"):
        return []
    return sorted({("RayCluster", name) for kind, ns, name in events
                   if kind == "RayCluster" and ns == expected.namespace
                   and ray_parent(name) == expected.name})


def _failed_create(expected: Expected, given: Any) -> bool:
    """The workload controllers' reasons (KubeRay's name the head or a worker pod)."""
    reason = str(given)
    if reason in ("FailedToCreateHeadPod", "FailedToCreateWorkerPod"):
        return (reason == "FailedToCreateHeadPod") == (expected.role == RAY_HEAD_GROUP)
    return reason in _CREATE_FAILED


def _unmutated(expected: Expected, pods: list[PodState]) -> list[Problem]:
    """Labelled pods the webhook let through unchanged, beyond those over the cap."""
    if len(pods) <= expected.native:
        return []
    names = ", ".join(p.name for p in pods[:3]) + (", …" if len(pods) > 3 else "")
    return [Problem(Verdict.STOP, expected.key,
                    f"{len(pods)} pods labelled tensor-fusion.ai/enabled run without the "
                    f"webhook's marks ({names}), the plan expects {expected.native} over the "
                    "enabled-replicas cap: the webhook did not take them over")]


def _seen_gpus(expected: Expected, pods: list[PodState], known: set[str]) -> list[Problem]:
    """The container must see as many GPUs as before, and GPUs the operator knows: a pod
    whose ``gpu-ids`` are fewer than it asks, or name a GPU the snapshot lacks, is not ready."""
    found = []
    for pod in (p for p in pods if p.gpu_ids):
        want = expected.request.count if expected.request is not None else pod.gpu_count
        unknown = [i for i in pod.gpu_ids if i not in known]
        if known and unknown:
            found.append(Problem(Verdict.STOP, pod.name, f"its gpu-ids name {', '.join(unknown)}"
                                 ", which the snapshot holds no GPU object of"))
        if want and len(set(pod.gpu_ids)) < want:
            found.append(Problem(Verdict.STOP, pod.name, f"asks {want} GPUs, its gpu-ids give "
                                 f"it {len(set(pod.gpu_ids))}: the container sees fewer GPUs "
                                 "than before the migration"))
    return found


def _creators(expected: Expected, snapshot: Snapshot) -> list[tuple[str, str]]:
    """The objects whose events say a pod could not be created."""
    if expected.kind in ROLLING:
        return [("ReplicaSet", name_of(rs)) for rs in
                replicasets(expected.kind, expected.namespace, expected.name, snapshot)]
    if expected.kind == "LeaderWorkerSet":  # its leaders' StatefulSet bears its name
        return [(expected.kind, expected.name), ("StatefulSet", expected.name)]
    if expected.kind == "MPIJob":
        return [(expected.kind, expected.name), ("Job", f"{expected.name}-launcher")]
    return [(expected.kind, expected.name)]


def _counts(expected: Expected, tf: int, native: int, known: list[Problem]) -> list[Problem]:
    if tf > expected.tensor_fusion:
        why = ("the enabled-replicas cap did not hold" if expected.capped else
               f"a {expected.kind} gets no enabled-replicas cap: a rung moves it whole, and "
               "this step does not move it")
        return [Problem(Verdict.STOP, expected.key, f"{tf} TensorFusion pods, the plan expects "
                        f"{expected.tensor_fusion}: {why}")]
    if tf < expected.tensor_fusion and not known:
        return [Problem(Verdict.WAIT, expected.key, f"{tf} of {expected.tensor_fusion} "
                        "TensorFusion pods so far: the rollout is in progress")]
    if native > expected.native and not known:
        return [Problem(Verdict.WAIT, expected.key, f"{native} native GPU pods still run, "
                        f"the plan expects {expected.native}")]
    return []


def _problem_order(problem: Problem) -> tuple[int, str, str]:
    return -problem.verdict, problem.subject, problem.message
