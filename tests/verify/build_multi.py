"""Writes ``snapshots/multi-*.yaml`` (run by hand, then review the diff): the cluster after the
takeover step of ``multi.yaml``, kinds with several pod templates.

Pods carry what their controllers write: KubeRay ``ray.io/cluster``,
``ray.io/node-type``, ``ray.io/group`` (``headgroup`` on the head,
``ray-operator/controllers/ray/utils/constant.go``) and are owned by the
RayCluster, a RayJob's cluster named ``<rayjob>-<5 characters>``; the
training operator ``training.kubeflow.org/replica-type`` (lower-cased),
mpi-operator ``training.kubeflow.org/job-role`` with its launcher in a Job
``<mpijob>-launcher``; LeaderWorkerSet ``leaderworkerset.sigs.k8s.io/name``
and ``worker-index`` (pods owned by StatefulSets); Argo Rollouts
``rollouts-pod-template-hash`` through ReplicaSets annotated
``rollout.argoproj.io/revision``, and the Rollout's ``status.stableRS`` and
``currentPodHash``. The operator's objects are those of ``build_snapshots``.

Also ``snapshots/partitioned-*.yaml``, for ``partitioned.yaml``: MIG slices
as the allocator records them (``GPU.status.allocatedPartitions`` keyed by
pod UID, ``available`` less each slice's share, ``api/v1/gpu_types.go``,
``internal/gpuallocator/gpuallocator.go`` ``bindPartition``).
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
_SPEC = importlib.util.spec_from_file_location("build_snapshots", HERE / "build_snapshots.py")
assert _SPEC is not None and _SPEC.loader is not None
base = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(base)

NODES = ("gpu-node-b", "gpu-node-c")
UUIDS = [f"GPU-{0x5E1A9C30 + i:08X}-7D2B-4C1E-9F3A-{0xB1C2D3E4F500 + i:012X}" for i in range(16)]
STABLE, CANARY = "6f8d7c5b9a", "84c9d6f7b5"


def gpu(index: int, used: bool) -> dict[str, Any]:
    item = base.gpu(0, used)
    uuid, node = UUIDS[index], NODES[index // 8]
    item["metadata"]["name"] = uuid.lower()
    item["metadata"]["labels"]["tensor-fusion.ai/managed-by"] = node
    item["metadata"]["ownerReferences"] = [base._owner("tensor-fusion.ai/v1", "GPUNode", node)]
    item["status"].update({"uuid": uuid, "index": index % 8,
                           "nodeSelector": {"kubernetes.io/hostname": node}})
    return item


def gpunode(name: str, used: int) -> dict[str, Any]:
    item = base.gpunode(used)
    item["metadata"]["name"] = name
    item["status"].update({"totalGPUs": 8, "managedGPUs": 8, "totalTFlops": "2496",
                           "totalVRAM": "640Gi", "availableTFlops": str(312 * (8 - used)),
                           "availableVRAM": f"{80 * (8 - used)}Gi"})
    return item


def operator(used: set[int]) -> list[dict[str, Any]]:
    pool = base.gpupool()
    pool["status"].update({"totalNodes": 2, "readyNodes": 2, "totalGPUs": 16,
                           "totalTFlops": "4992", "totalVRAM": "1280Gi"})
    nodes = [gpunode(n, sum(1 for i in used if i // 8 == k)) for k, n in enumerate(NODES)]
    return [pool, *nodes, *(gpu(i, i in used) for i in range(16))]


def pod(name: str, namespace: str, owner: tuple[str, str, str], labels: dict[str, str],
        gpu_index: int | None, *, tf: bool = True, phase: str = "Running") -> dict[str, Any]:
    """A pod as its controller made it, mutated by the webhook when ``tf``."""
    container = name.rsplit("-", 2)[0]
    item = base.pod(name, "vllm", ("ReplicaSet", "x-y"), tf=tf, gpu_index=None, phase=phase)
    meta = item["metadata"]
    meta.update({"namespace": namespace,
                 "ownerReferences": [base._owner(owner[0], owner[1], owner[2])]})
    meta["labels"] = {**labels, **({k: v for k, v in meta["labels"].items()
                                    if k.startswith("tensor-fusion.ai/")})}
    meta["labels"].pop("tensor-fusion.ai/workload", None)
    item["spec"]["containers"][0]["name"] = container
    for status in item["status"].get("containerStatuses", []):
        status["name"] = container
    if tf:
        meta["annotations"]["tensor-fusion.ai/inject-container"] = container
    if gpu_index is not None and tf:
        uuid = UUIDS[gpu_index].lower()
        meta["annotations"].update({"tensor-fusion.ai/gpu-ids": uuid,
                                    "tensor-fusion.ai/index": str(gpu_index % 8)})
    if phase != "Pending":
        item["spec"]["nodeName"] = NODES[(gpu_index or 0) // 8]
    return item


def ray(cluster: str, group: str, index: int, gpu_index: int | None,
        **more: Any) -> dict[str, Any]:
    head = group == "headgroup"
    name = f"{cluster}-head-x2v9q" if head else f"{cluster}-{group}-worker-{index}k7p"
    labels = {"ray.io/cluster": cluster, "ray.io/node-type": "head" if head else "worker",
              "ray.io/group": group, "ray.io/is-ray-node": "yes",
              "ray.io/identifier": f"{cluster}-{'head' if head else 'worker'}",
              "app.kubernetes.io/name": "kuberay", "app.kubernetes.io/created-by": "kuberay-operator"}
    return pod(name, "ray", ("ray.io/v1", "RayCluster", cluster), labels, gpu_index, **more)


def kubeflow(job: str, kind: str, role: str, index: int, gpu_index: int | None,
             **more: Any) -> dict[str, Any]:
    labels = {"training.kubeflow.org/job-name": job, "training.kubeflow.org/operator-name":
              "pytorchjob-controller" if kind == "PyTorchJob" else "mpi-operator",
              "training.kubeflow.org/replica-index": str(index)}
    if kind == "PyTorchJob":
        labels["training.kubeflow.org/replica-type"] = role
        if role == "master":
            labels["training.kubeflow.org/job-role"] = "master"
    else:
        labels["training.kubeflow.org/job-role"] = role
    return pod(f"{job}-{role}-{index}", "ml-training", ("kubeflow.org/v1", kind, job), labels,
               gpu_index, **more)


def lws(name: str, group: int, worker: int, gpu_index: int | None,
        **more: Any) -> dict[str, Any]:
    labels = {"leaderworkerset.sigs.k8s.io/name": name,
              "leaderworkerset.sigs.k8s.io/group-index": str(group),
              "leaderworkerset.sigs.k8s.io/worker-index": str(worker)}
    pod_name = f"{name}-{group}" if worker == 0 else f"{name}-{group}-{worker}"
    owner = ("apps/v1", "StatefulSet", name if worker == 0 else f"{name}-{group}")
    return pod(pod_name, "ml-serving", owner, labels, gpu_index, **more)


def rollout_pod(template_hash: str, suffix: str, gpu_index: int | None,
                **more: Any) -> dict[str, Any]:
    labels = {"app": "chat", "rollouts-pod-template-hash": template_hash}
    return pod(f"chat-{template_hash}-{suffix}", "ml-serving",
               ("apps/v1", "ReplicaSet", f"chat-{template_hash}"), labels, gpu_index, **more)


def rollout_rs(template_hash: str, revision: int, replicas: int) -> dict[str, Any]:
    item = base.replicaset(f"chat-{template_hash}", revision, replicas, template_hash == CANARY)
    meta = item["metadata"]
    meta.update({"namespace": "ml-serving",
                 "labels": {"app": "chat", "rollouts-pod-template-hash": template_hash},
                 "annotations": {"rollout.argoproj.io/revision": str(revision),
                                 "rollout.argoproj.io/desired-replicas": "2"},
                 "ownerReferences": [base._owner("argoproj.io/v1alpha1", "Rollout", "chat")]})
    return item


def rollout(stable: str, current: str, **status: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {
        "name": "chat", "namespace": "ml-serving",
        "annotations": {"rollout.argoproj.io/revision": "2"}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "chat"}}},
        "status": {"phase": "Healthy", "replicas": 2, "readyReplicas": 2, "updatedReplicas": 2,
                   "availableReplicas": 2, "stableRS": stable, "currentPodHash": current,
                   **status}}


def clean() -> list[dict[str, Any]]:
    return [ray("llm", "headgroup", 0, None, tf=False),
            ray("llm", "a100-group", 0, 0), ray("llm", "a100-group", 1, 1),
            ray("llm", "small-group", 0, 2),
            ray("batch-infer-x7k2p", "gpu-group", 0, 3),
            rollout_pod(CANARY, "m4x8z", 4), rollout_pod(CANARY, "r2t6w", 5),
            rollout_rs(STABLE, 1, 0), rollout_rs(CANARY, 2, 2), rollout(CANARY, CANARY),
            kubeflow("bert", "PyTorchJob", "master", 0, 6),
            kubeflow("bert", "PyTorchJob", "worker", 0, 7),
            kubeflow("bert", "PyTorchJob", "worker", 1, 8),
            pod("hvd-launcher-5h2kq", "ml-training", ("batch/v1", "Job", "hvd-launcher"),
                {"training.kubeflow.org/job-name": "hvd", "training.kubeflow.org/job-role":
                 "launcher"}, None, tf=False),
            kubeflow("hvd", "MPIJob", "worker", 0, 9), kubeflow("hvd", "MPIJob", "worker", 1, 10),
            lws("dsr1", 0, 0, 11), lws("dsr1", 0, 1, 12), *operator(set(range(13)))]


def mixed() -> list[dict[str, Any]]:
    """One template of each object goes wrong; its sibling templates stay ready."""
    items = clean()
    by_name = {i["metadata"]["name"]: n for n, i in enumerate(items)}
    items[by_name["llm-small-group-worker-0k7p"]] = ray("llm", "small-group", 0, None,
                                                        phase="Pending")
    items[by_name["bert-worker-1"]] = base.crash_looping(items[by_name["bert-worker-1"]])
    items[by_name["dsr1-0-1"]] = lws("dsr1", 0, 1, None, tf=False)
    items[by_name["dsr1-0-1"]]["metadata"]["labels"]["tensor-fusion.ai/enabled"] = "true"
    items[by_name[f"chat-{CANARY}-r2t6w"]] = rollout_pod(STABLE, "h3c5v", None, tf=False)
    items[by_name[f"chat-{STABLE}"]] = rollout_rs(STABLE, 1, 1)
    items[by_name[f"chat-{CANARY}"]] = rollout_rs(CANARY, 2, 1)
    items[by_name["chat"]] = rollout(STABLE, CANARY, phase="Paused", message="CanaryPauseStep")
    gpus = {i for i in range(13) if i not in (2, 5, 12)}
    return [i for i in items if i["kind"] not in ("GPU", "GPUNode", "GPUPool")] + operator(gpus)


def aborted() -> list[dict[str, Any]]:
    """The Rollout was aborted: the stable (native) revision takes everything back."""
    items = [i for i in clean() if "chat" not in i["metadata"]["name"]
             and i["kind"] not in ("GPU", "GPUNode", "GPUPool")]
    return [*items, rollout_pod(STABLE, "h3c5v", None, tf=False),
            rollout_pod(STABLE, "p9d2s", None, tf=False), rollout_rs(STABLE, 1, 2),
            rollout_rs(CANARY, 2, 0),
            rollout(STABLE, CANARY, phase="Degraded", abort=True,
                    message="RolloutAborted: Rollout aborted update to revision 2"),
            *operator(set(range(13)) - {4, 5})]


EMBEDDER = "embedder-5f7d9c8b6"
SLICE = "nv-80g-3g-40gb"  # 42.8571 % of 312 TFLOPS = 133.71, and 40 GiB


def partitioned_pod(suffix: str, gpu_index: int | None) -> dict[str, Any]:
    """An embedder pod of ``partitioned.yaml`` on one MIG slice of GPU ``gpu_index``."""
    name = f"{EMBEDDER}-{suffix}"
    item = base.pod(name, "vllm", ("ReplicaSet", EMBEDDER), tf=True, gpu_index=gpu_index,
                    phase="Running" if gpu_index is not None else "Pending")
    item["metadata"]["labels"].update({"app": "embedder", "tensor-fusion.ai/workload": "embedder"})
    item["spec"]["containers"][0].update({"name": "embedder",
                                          "image": "ghcr.io/acme/embedder:1.4.0"})
    item["metadata"]["annotations"].update({
        "tensor-fusion.ai/isolation": "partitioned", "tensor-fusion.ai/partition-id": "3g.40gb",
        "tensor-fusion.ai/inject-container": "embedder",
        "tensor-fusion.ai/container-gpu-count": '{"embedder":1}'})
    if gpu_index is None:
        return item
    item["status"]["containerStatuses"][0]["name"] = "embedder"
    item["metadata"]["annotations"].update({  # PreBind writes the resolved template
        "tensor-fusion.ai/partition-id": SLICE, "tensor-fusion.ai/container-gpus":
        f'{{"embedder":["{base.UUIDS[gpu_index].lower()}"]}}'})
    return item


def sliced_gpu(index: int, pods: list[tuple[str, str]]) -> dict[str, Any]:
    """A GPU cut in 3g.40gb slices for ``pods`` (name, uid), as the allocator reports it."""
    item = base.gpu(index, False)
    status = item["status"]
    status.update({"isolationMode": "partitioned", "isolationPolicy": "Static"})
    status["available"] = {"tflops": f"{312 - 133.71 * len(pods):.2f}",
                           "vram": f"{81920 - 40960 * len(pods)}Mi"}
    status["allocatedPartitions"] = {uid: {
        "templateId": SLICE, "podUid": uid, "podName": name, "namespace": "ml-serving",
        "allocatedAt": base.T0, "allocatedSlotStart": 4 * n, "allocatedSlotEnd": 4 * n + 4}
        for n, (name, uid) in enumerate(pods)}
    return item


def embedder_rs() -> dict[str, Any]:
    item = base.replicaset(EMBEDDER, 1, 3, True)
    item["metadata"]["labels"] = {"app": "embedder", "pod-template-hash": "5f7d9c8b6"}
    item["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = "3"
    item["metadata"]["ownerReferences"] = [base._owner("apps/v1", "Deployment", "embedder")]
    return item


def partitioned(leak: bool = False) -> list[dict[str, Any]]:
    """vllm taken over on GPUs 0 and 1; three embedder slices on GPUs 2 and 3. With ``leak``
    the allocator lost the third pod's partition and kept one of a pod long deleted."""
    pods = [partitioned_pod(s, i) for s, i in (("b8k2m", 2), ("c4n7q", 2), ("d9p3r", 3))]
    uids = [(p["metadata"]["name"], p["metadata"]["uid"]) for p in pods]
    third = [(f"{EMBEDDER}-a1x5z", "uid-a1x5z")] if leak else uids[2:]
    vllm = [i for i in base.clean() if i["kind"] == "ReplicaSet" or
            i["metadata"]["name"].startswith(base.NEW)]
    return [*vllm, *pods, embedder_rs(), base.gpupool(), base.gpunode(4),
            base.gpu(0, True), base.gpu(1, True), sliced_gpu(2, uids[:2]), sliced_gpu(3, third)]


def partitioned_dynamic() -> list[dict[str, Any]]:
    """The Helm default Dynamic policy on every GPU: the embedder pods never get a slice."""
    items = [i for i in partitioned() if i["kind"] != "GPU" and "embedder-" not in
             i["metadata"]["name"]]
    pods = [partitioned_pod(s, None) for s in ("b8k2m", "c4n7q", "d9p3r")]
    return [*items, *pods, base.gpu(0, True), base.gpu(1, True), base.gpu(2, False),
            base.gpu(3, False), embedder_rs()]


def scenarios() -> dict[str, list[dict[str, Any]]]:
    return {"multi-clean": clean(), "multi-mixed": mixed(), "multi-aborted": aborted(),
            "partitioned-clean": partitioned(), "partitioned-leak": partitioned(leak=True),
            "partitioned-dynamic": partitioned_dynamic()}


def main() -> int:
    for name, items in scenarios().items():
        text = base.as_list(copy.deepcopy(items))
        (HERE / "snapshots" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
