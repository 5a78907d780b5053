"""Which workload, and which of its pod templates, a pod of the snapshot belongs to.

The snapshot holds pods and ReplicaSets, not the controllers' intermediate
objects, so a pod is tied to a workload through what it carries:

- its controller ownerReference; a ReplicaSet's own leads on to its
  Deployment or Argo Rollout;
- a Job ``<cronjob>-<minutes>`` to its CronJob (the CronJob controller's
  naming), a Job ``<mpijob>-launcher`` to its MPIJob (mpi-operator names the
  launcher Job so, ``pkg/controller/mpi_job_controller.go`` ``launcherSuffix``);
- a RayCluster to the RayJob or RayService that made it: the labels
  ``ray.io/originated-from-crd``/``-cr-name`` when the pod has them, else the
  cluster's name, ``<parent>-<5 random characters>`` (KubeRay
  ``GenerateRayClusterName``; older releases ``<parent>-raycluster-<hash>``);
- a pod labelled ``leaderworkerset.sigs.k8s.io/name`` to that LeaderWorkerSet
  (its pods are owned by StatefulSets, a worker group's by its leader pod).

Among the templates of one object, a role picks the pod's (a pod whose role
is none of the object's GPU templates, a Ray head without a GPU, is not one
of its pods): the Kubeflow
replica type (training-operator's ``training.kubeflow.org/replica-type``,
lower-cased; mpi-operator's ``training.kubeflow.org/job-role``), KubeRay's
worker group (``ray.io/group``, the group's ``groupName``; ``headgroup`` on the
head, ``ray-operator/controllers/ray/utils/constant.go``), and for a
LeaderWorkerSet the worker index (``0`` is the leader).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import Path, get_path
from tfpolicy.verify.cluster_snapshot import controller_of, meta

REPLICA_TYPE = "training.kubeflow.org/replica-type"
JOB_ROLE = "training.kubeflow.org/job-role"
RAY_GROUP = "ray.io/group"
RAY_NODE_TYPE = "ray.io/node-type"
RAY_HEAD_GROUP = "headgroup"
RAY_FROM_CRD = "ray.io/originated-from-crd"
RAY_FROM_NAME = "ray.io/originated-from-cr-name"
LWS_NAME = "leaderworkerset.sigs.k8s.io/name"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"
_CRON_JOB = re.compile(r"^(?P<parent>.+)-[0-9]+$")
_RAY_CHILD = re.compile(r"^(?P<parent>.+?)(-raycluster)?-[a-z0-9]{5,10}$")
_MPI_LAUNCHER = "-launcher"
Owners = Mapping[tuple[str, str], tuple[str, str] | None]


def candidates(pod: Mapping[str, Any], owners: Owners, namespace: str) -> list[tuple[str, str]]:
    """(kind, name) of the objects the pod may belong to, the likeliest first."""
    labels = meta(pod, "labels")
    if labels.get(LWS_NAME):
        return [("LeaderWorkerSet", str(labels[LWS_NAME]))]
    owner = controller_of(pod)
    if owner is None:
        return []
    kind, name = owner
    if kind == "ReplicaSet" and (parent := owners.get((namespace, name))) is not None:
        kind, name = parent
    found = [(kind, name)]
    if kind == "Job":
        if cron := _CRON_JOB.match(name):
            found.append(("CronJob", cron["parent"]))
        if name.endswith(_MPI_LAUNCHER):
            found.append(("MPIJob", name[:-len(_MPI_LAUNCHER)]))
    if kind == "RayCluster":
        found += _ray_parents(labels, name)
    return found


def _ray_parents(labels: Mapping[str, Any], cluster: str) -> list[tuple[str, str]]:
    if labels.get(RAY_FROM_CRD) and labels.get(RAY_FROM_NAME):
        return [(str(labels[RAY_FROM_CRD]), str(labels[RAY_FROM_NAME]))]
    parent = ray_parent(cluster)
    return [("RayJob", parent), ("RayService", parent)] if parent else []


def ray_parent(cluster: str) -> str | None:
    """The RayJob or RayService a RayCluster so named was made for, by its name."""
    child = _RAY_CHILD.match(cluster)
    return child["parent"] if child else None


def pod_role(pod: Mapping[str, Any]) -> str:
    """The template role the pod's labels name ('' when none)."""
    labels = meta(pod, "labels")
    for key in (REPLICA_TYPE, JOB_ROLE):
        if labels.get(key):
            return str(labels[key]).lower()
    if labels.get(RAY_NODE_TYPE) == "head":
        return RAY_HEAD_GROUP
    if labels.get(RAY_GROUP):
        return str(labels[RAY_GROUP])
    if LWS_WORKER_INDEX in labels:
        return "leader" if str(labels[LWS_WORKER_INDEX]) == "0" else "worker"
    return ""


def template_role(document: Any, path: Path) -> str:
    """The role of the template at ``path`` among its object's templates (see above)."""
    if len(path) < 2:
        return ""
    last, parent = path[-1], path[-2]
    if last == "leaderTemplate":
        return "leader"
    if last == "workerTemplate":  # without a leaderTemplate, leaders are made from it too
        group = get_path(document, path[:-1])
        return "worker" if isinstance(group, Mapping) and "leaderTemplate" in group else ""
    if parent == "headGroupSpec":
        return RAY_HEAD_GROUP
    if len(path) >= 3 and path[-3] == "workerGroupSpecs":
        group = get_path(document, path[:-1])
        return str(group.get("groupName", "")) if isinstance(group, Mapping) else ""
    if len(path) >= 3 and str(path[-3]).endswith("ReplicaSpecs"):
        return str(parent).lower()
    return ""
