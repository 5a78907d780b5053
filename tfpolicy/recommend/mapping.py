"""From pod names back to the workloads that made them, the way the controllers name pods.

Deployment and Argo Rollout: ``name-<pod-template-hash>-<5>``; ReplicaSet,
ReplicationController, DaemonSet, Job: ``name-<5>``; CronJob:
``name-<scheduled minute>-<5>``; StatefulSet: ``name-<ordinal>``;
LeaderWorkerSet: ``name-<group>[-<index>]``; Kubeflow jobs:
``name-<replica type>-<index>`` (MPIJob's launcher ``name-launcher[-<5>]``);
RayCluster: ``name-head-<5>`` and ``name-<group>-worker-<5>``. The random
suffixes use Kubernetes' safe alphabet (``k8s.io/apimachinery``
``util/rand.SafeEncodeString``: no vowels, no 0/1/3). A pod that two
workloads could have made is ambiguous and used for neither; kinds whose
pods are named by another object (RayJob, RayService) are not mapped.
"""

from __future__ import annotations

import re

from tfpolicy.records import Record

_SAFE = "[bcdfghjklmnpqrstvwxz2456789]"
_HASH = f"{_SAFE}{{1,10}}"
_RAND = f"{_SAFE}{{5}}"
_ORDINAL = "(?:0|[1-9][0-9]*)"

SUFFIXES: dict[str, str] = {
    "Deployment": f"-{_HASH}-{_RAND}",
    "Rollout": f"-{_HASH}-{_RAND}",
    "ReplicaSet": f"-{_RAND}",
    "ReplicationController": f"-{_RAND}",
    "DaemonSet": f"-{_RAND}",
    "Job": f"-{_RAND}",
    "CronJob": f"-[0-9]+-{_RAND}",
    "StatefulSet": f"-{_ORDINAL}",
    "LeaderWorkerSet": f"-{_ORDINAL}(?:-{_ORDINAL})?",
    "PyTorchJob": f"-(?:master|worker)-{_ORDINAL}",
    "TFJob": f"-(?:chief|ps|worker|evaluator|master)-{_ORDINAL}",
    "MPIJob": f"-(?:launcher(?:-{_RAND})?|worker-{_ORDINAL})",
    "XGBoostJob": f"-(?:master|worker)-{_ORDINAL}",
    "PaddleJob": f"-(?:master|worker)-{_ORDINAL}",
    "RayCluster": f"-(?:head|[a-z0-9-]+-worker)-{_RAND}",
    "Pod": "",
}


class WorkloadId(Record, order=True):
    namespace: str
    kind: str
    name: str

    def __str__(self) -> str:
        """``Kind/namespace/name``, as every other command names an object
        (docs/commands.md, "A message names its object")."""
        return f"{self.kind}/{self.namespace}/{self.name}"


def pattern(workload: WorkloadId) -> re.Pattern[str] | None:
    """The regular expression of the pod names ``workload`` makes, or None for unmapped kinds."""
    suffix = SUFFIXES.get(workload.kind)
    if suffix is None:
        return None
    return re.compile(re.escape(workload.name) + suffix)


class Mapping(Record):
    owners: dict[tuple[str, str], WorkloadId]  # (namespace, pod) -> its one workload
    ambiguous: dict[tuple[str, str], tuple[WorkloadId, ...]]


def map_pods(pods: set[tuple[str, str]], workloads: list[WorkloadId]) -> Mapping:
    """Each (namespace, pod) to the one workload whose naming rule it fits."""
    by_name: dict[tuple[str, str], list[tuple[WorkloadId, re.Pattern[str]]]] = {}
    for workload in workloads:
        compiled = pattern(workload)
        if compiled is not None:
            by_name.setdefault((workload.namespace, workload.name), []).append((workload, compiled))
    owners: dict[tuple[str, str], WorkloadId] = {}
    ambiguous: dict[tuple[str, str], tuple[WorkloadId, ...]] = {}
    for key in sorted(pods):
        fits = tuple(sorted(w for w, p in _candidates(key, by_name) if p.fullmatch(key[1])))
        if len(fits) == 1:
            owners[key] = fits[0]
        elif fits:
            ambiguous[key] = fits
    return Mapping(owners, ambiguous)


def _candidates(key: tuple[str, str], by_name: dict[tuple[str, str], list[
        tuple[WorkloadId, re.Pattern[str]]]]) -> list[tuple[WorkloadId, re.Pattern[str]]]:
    """Workloads whose name is the pod's name or a prefix of it ending before a dash."""
    namespace, pod = key
    cuts = [i for i, c in enumerate(pod) if c == "-"] + [len(pod)]
    return [entry for cut in cuts for entry in by_name.get((namespace, pod[:cut]), [])]
