"""Writes the cluster snapshots under ``snapshots/`` and ``examples/cluster/`` (run by hand,
then review the diff): what ``kubectl get pods,replicasets,events,gpus,gpunodes,gpupools -A
-o yaml`` prints after the takeover step of ``manifests.yaml``.

The objects follow the operator's CRDs (``charts/tensor-fusion/crds/``, ``config/samples/
v1_gpu.yaml``) with status filled as its controllers fill it: GPU names are lower-cased
UUIDs, ``available`` is capacity minus committed requests and 0/0 under a shared pod
(reference §4, §5.4); pods carry the webhook's marks (§1.3) and the scheduler's
``gpu-ids``; a Pending pod carries the scheduler's FitError and the plugin's
``GPUQuotaOrCapacityNotEnough`` event (``internal/scheduler/gpuresources/gpuresources.go``).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from tfpolicy.yamlio import dump_documents

HERE = Path(__file__).parent
POOL = "tensor-fusion-shared"
NODE = "gpu-node-a"
UUIDS = ["GPU-3F5A1C2E-8D4B-4E6F-9A1B-2C3D4E5F6A70", "GPU-7B2E9D41-06C3-4A58-B1F2-93E4D5C6A7B8",
         "GPU-C0FD1DE6-4D2C-0743-2AB3-A1ED8C265A05", "GPU-971D2476-A7CD-4A99-CAA8-0184C1942B80"]
T0 = "2026-11-30T09:00:00Z"
NO_GPU = ("0/1 nodes are available: no gpus available or valid in pool tensor-fusion-shared "
          "after filtering. preemption: 0/1 nodes are available: 1 No preemption victims found "
          "for incoming pod.")
REJECTED = ('Error creating: admission webhook "mpod.tensor-fusion.ai" denied the request: '
            "gpu pool not found")


def gpu(index: int, used: bool) -> dict[str, Any]:
    uuid = UUIDS[index]
    free = {"tflops": "0", "vram": "0"} if used else {"tflops": "312", "vram": "81920Mi"}
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPU", "metadata": {
        "name": uuid.lower(), "labels": {"tensor-fusion.ai/gpupool": POOL,
                                         "tensor-fusion.ai/managed-by": NODE},
        "annotations": {"tensor-fusion.ai/last-sync": "2026-11-30T09:20:00Z"},
        "ownerReferences": [_owner("tensor-fusion.ai/v1", "GPUNode", NODE)]},
        "status": {"phase": "Running", "vendor": "NVIDIA", "model": "A100_SXM_80G",
                   "gpuModel": "NVIDIA A100-SXM4-80GB", "uuid": uuid, "index": index,
                   "numaNode": 0, "nodeSelector": {"kubernetes.io/hostname": NODE},
                   "capacity": {"tflops": "312", "vram": "81920Mi"}, "available": free,
                   "usedBy": "tensor-fusion", "isolationMode": "soft",
                   "isolationPolicy": "Dynamic",
                   **({"activeIsolationMode": "shared"} if used else {})}}


def gpunode(used: int) -> dict[str, Any]:
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPUNode", "metadata": {
        "name": NODE, "labels": {"tensor-fusion.ai/managed-by": POOL,
                                 f"tensor-fusion.ai/pool-{POOL}": "true"}},
        "spec": {"manageMode": "AutoSelect"},
        "status": {"phase": "Running", "totalGPUs": 4, "managedGPUs": 4, "totalTFlops": "1248",
                   "totalVRAM": "320Gi", "availableTFlops": str(312 * (4 - used)),
                   "availableVRAM": f"{80 * (4 - used)}Gi", "totalGPUPods": used,
                   "nodeInfo": {"ramSize": "1Ti", "dataDiskSize": "2Ti"}}}


def gpupool() -> dict[str, Any]:
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPUPool", "metadata": {
        "name": POOL, "annotations": {"tensor-fusion.ai/is-default-pool": "true"}},
        "spec": {"nodeManagerConfig": {"defaultIsolationMode": "soft"},
                 "schedulingConfigTemplate": "tf-scheduling-config"},
        "status": {"phase": "Running", "totalNodes": 1, "readyNodes": 1, "totalGPUs": 4,
                   "totalTFlops": "1248", "totalVRAM": "320Gi"}}


def _owner(api: str, kind: str, name: str) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": f"uid-{name}",
            "controller": True, "blockOwnerDeletion": True}


def replicaset(name: str, revision: int, replicas: int, tf: bool) -> dict[str, Any]:
    template = _template("vllm", tf)
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": name, "namespace": "ml-serving",
        "labels": {"app": "vllm", "pod-template-hash": name.rsplit("-", 1)[1]},
        "annotations": {"deployment.kubernetes.io/revision": str(revision),
                        "deployment.kubernetes.io/desired-replicas": "2"},
        "ownerReferences": [_owner("apps/v1", "Deployment", "vllm")]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "vllm"}},
                 "template": template},
        "status": {"replicas": replicas, "readyReplicas": replicas,
                   "availableReplicas": replicas, "fullyLabeledReplicas": replicas}}


def _template(app: str, tf: bool) -> dict[str, Any]:
    labels = {"app": app, **({"tensor-fusion.ai/enabled": "true"} if tf else {})}
    notes = {"tensor-fusion.ai/isolation": "shared"} if tf else {}
    return {"metadata": {"labels": labels, "annotations": notes}, "spec": {"containers": [
        {"name": app, "image": "vllm/vllm-openai:v0.6.3",
         "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}


def pod(name: str, app: str, owner: tuple[str, str], *, tf: bool, gpu_index: int | None,
        phase: str = "Running", ready: bool = True) -> dict[str, Any]:
    namespace = "ml-serving" if app == "vllm" else "ml-training"
    labels: dict[str, Any] = {"app": app}
    if owner[0] == "ReplicaSet":
        labels["pod-template-hash"] = owner[1].rsplit("-", 1)[1]
    notes: dict[str, Any] = {}
    spec: dict[str, Any] = {"containers": [{"name": app, "image": "vllm/vllm-openai:v0.6.3",
                                            "resources": {}}],
                            "schedulerName": "default-scheduler"}
    if tf:
        labels.update(_tf_labels(app))
        notes.update(_tf_annotations(app, gpu_index))
        spec["schedulerName"] = "tensor-fusion-scheduler"
        spec["tolerations"] = [{"key": "tensor-fusion.ai/used-by", "operator": "Equal",
                                "value": "tensor-fusion", "effect": "PreferNoSchedule"}]
    else:
        spec["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "1"},
                                              "requests": {"nvidia.com/gpu": "1"}}
    if phase != "Pending":
        spec["nodeName"] = NODE
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": namespace, "labels": labels, "annotations": notes,
        "creationTimestamp": T0, "uid": f"uid-{name}",
        "ownerReferences": [_owner("apps/v1", *owner)]},
        "spec": spec, "status": _status(app, phase, ready)}


def _tf_labels(app: str) -> dict[str, str]:
    return {"tensor-fusion.ai/enabled": "true", "tensor-fusion.ai/component": "worker",
            "tensor-fusion.ai/workload": app, "tensor-fusion.ai/gpupool": POOL,
            "tensor-fusion.ai/pod-template-hash": "5d8f9c7b6d"}


def _tf_annotations(app: str, gpu_index: int | None) -> dict[str, str]:
    notes = {"tensor-fusion.ai/isolation": "shared", "tensor-fusion.ai/qos": "medium",
             "tensor-fusion.ai/gpu-count": "1", "tensor-fusion.ai/gpupool": POOL,
             "tensor-fusion.ai/vendor": "NVIDIA", "tensor-fusion.ai/is-local-gpu": "true",
             "tensor-fusion.ai/sidecar-worker": "false", "tensor-fusion.ai/inject-container": app,
             "tensor-fusion.ai/container-gpu-count": f'{{"{app}":1}}',
             "tensor-fusion.ai/embedded-worker": "true",
             "tensor-fusion.ai/pod-counter-key": "tensor-fusion.ai/tf-counter-5d8f9c7b6d"}
    if gpu_index is not None:
        notes["tensor-fusion.ai/gpu-ids"] = UUIDS[gpu_index].lower()
        notes["tensor-fusion.ai/index"] = str(gpu_index)
        notes["tensor-fusion.ai/container-gpus"] = f'{{"{app}":["{UUIDS[gpu_index].lower()}"]}}'
    return notes


def _status(app: str, phase: str, ready: bool) -> dict[str, Any]:
    if phase == "Pending":
        return {"phase": "Pending", "qosClass": "BestEffort", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": NO_GPU, "lastTransitionTime": T0}]}
    flag = "True" if ready else "False"
    return {"phase": phase, "hostIP": "10.0.0.11", "podIP": "10.244.1.17", "startTime": T0,
            "qosClass": "BestEffort", "conditions": [
                {"type": kind, "status": flag if kind in ("Ready", "ContainersReady") else "True",
                 "lastTransitionTime": T0}
                for kind in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
            "containerStatuses": [{"name": app, "ready": ready, "restartCount": 0,
                                   "image": "vllm/vllm-openai:v0.6.3",
                                   "state": {"running": {"startedAt": T0}}}]}


def crash_looping(item: dict[str, Any]) -> dict[str, Any]:
    status = item["status"]
    status["conditions"][1]["status"] = status["conditions"][2]["status"] = "False"
    status["containerStatuses"][0].update({
        "ready": False, "restartCount": 6,
        "state": {"waiting": {"reason": "CrashLoopBackOff",
                              "message": "back-off 5m0s restarting failed container"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}})
    return item


def event(kind: str, namespace: str, name: str, reason: str, message: str,
          source: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": reason,
            "message": message, "count": 3, "firstTimestamp": T0, "lastTimestamp": T0,
            "metadata": {"name": f"{name}.1870a2b3c4d5e6f7", "namespace": namespace},
            "involvedObject": {"apiVersion": "apps/v1" if kind != "Pod" else "v1",
                               "kind": kind, "name": name, "namespace": namespace},
            "source": {"component": source}}


OLD, NEW = "vllm-6d5f7c9b8", "vllm-7b9c4d5f6"
TRAINER = ("StatefulSet", "trainer")


def operator(used: list[int]) -> list[dict[str, Any]]:
    return [gpupool(), gpunode(len(used)), *(gpu(i, i in used) for i in range(4))]


def clean() -> list[dict[str, Any]]:
    return [pod(f"{NEW}-k2x9p", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=0),
            pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=1),
            pod("trainer-0", "trainer", TRAINER, tf=True, gpu_index=2),
            replicaset(OLD, 1, 0, False), replicaset(NEW, 2, 2, True), *operator([0, 1, 2])]


def rightsized(item: dict[str, Any], tflops: str = "30", vram: str = "8Gi") -> dict[str, Any]:
    """A pod under ``rightsize-example``: soft isolation, a share of a card."""
    item["metadata"]["annotations"].update({
        "tensor-fusion.ai/isolation": "soft", "tensor-fusion.ai/tflops-request": tflops,
        "tensor-fusion.ai/tflops-limit": str(2 * int(tflops)),
        "tensor-fusion.ai/vram-request": vram, "tensor-fusion.ai/vram-limit": "16Gi"})
    return item


def shared_gpu(free_tflops: str, free_vram: str) -> dict[str, Any]:
    item = gpu(0, False)
    item["status"]["available"] = {"tflops": free_tflops, "vram": free_vram}
    item["status"]["activeIsolationMode"] = "soft"
    return item


def device_plugin_gpu(index: int) -> dict[str, Any]:
    item = gpu(index, False)
    item["status"]["usedBy"] = "nvidia-device-plugin"
    return item


def insufficient_tflops() -> list[dict[str, Any]]:
    """Step 08 of rightsize-example: GPU 0 is the only TensorFusion GPU left and a pod of
    another team takes 240 TFLOPS of it, so the second vllm pod cannot get its 30."""
    other = rightsized(pod("notebook-7", "notebook", ("ReplicaSet", "notebook-5c6d7e8f9"),
                           tf=True, gpu_index=0), tflops="240", vram="52Gi")
    other["metadata"]["namespace"] = "research"
    waiting = rightsized(pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=True,
                             gpu_index=None, phase="Pending"))
    return [rightsized(pod(f"{NEW}-k2x9p", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=0)),
            waiting, rightsized(pod("trainer-0", "trainer", TRAINER, tf=True, gpu_index=0)),
            other, replicaset(OLD, 1, 0, False), replicaset(NEW, 2, 2, True),
            gpupool(), gpunode(1), shared_gpu("12", "12288Mi"),
            *(device_plugin_gpu(i) for i in (1, 2, 3)),
            event("Pod", "ml-serving", f"{NEW}-q7w4z", "GPUQuotaOrCapacityNotEnough",
                  "TensorFusion schedule failed, no enough resource or quotas: no gpus "
                  f"available or valid in pool {POOL} after filtering",
                  "tensor-fusion-scheduler")]


def capped() -> list[dict[str, Any]]:
    """Step 01 takeover-1: the new revision runs one TensorFusion pod and, over the
    enabled-replicas cap, one pod the webhook admitted unmutated (native)."""
    native = pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=False, gpu_index=None)
    native["metadata"]["labels"]["tensor-fusion.ai/enabled"] = "true"
    for item in (native,):
        item["metadata"]["annotations"].update({"tensor-fusion.ai/isolation": "shared",
                                                "tensor-fusion.ai/enabled-replicas": "1"})
    items = clean()
    items[1] = native
    items[-3] = device_plugin_gpu(1)  # the native pod's card, held by the device plugin
    return items


def scenarios() -> dict[str, list[dict[str, Any]]]:
    found = {"clean": clean()}
    pending = clean()
    pending[1] = pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=None,
                     phase="Pending")
    pending[2] = crash_looping(pending[2])
    pending[-3] = gpu(1, False)  # the Pending pod holds no GPU
    found["pending"] = [*pending, event("Pod", "ml-serving", f"{NEW}-q7w4z",
                                        "GPUQuotaOrCapacityNotEnough",
                                        "TensorFusion schedule failed, no enough resource or "
                                        "quotas: no gpus available or valid in pool "
                                        f"{POOL} after filtering", "tensor-fusion-scheduler")]
    found["rejected"] = [pod(f"{OLD}-h5n2c", "vllm", ("ReplicaSet", OLD), tf=False,
                             gpu_index=None),
                         pod(f"{OLD}-m3v8t", "vllm", ("ReplicaSet", OLD), tf=False,
                             gpu_index=None),
                         pod("trainer-0", "trainer", TRAINER, tf=True, gpu_index=2),
                         replicaset(OLD, 1, 2, False), replicaset(NEW, 2, 1, True),
                         event("ReplicaSet", "ml-serving", NEW, "FailedCreate", REJECTED,
                               "replicaset-controller"), *operator([2])]
    found["partial"] = [pod(f"{OLD}-h5n2c", "vllm", ("ReplicaSet", OLD), tf=False,
                            gpu_index=None),
                        pod(f"{NEW}-k2x9p", "vllm", ("ReplicaSet", NEW), tf=True, gpu_index=0),
                        pod("trainer-0", "trainer", TRAINER, tf=True, gpu_index=2),
                        replicaset(OLD, 1, 1, False), replicaset(NEW, 2, 1, True),
                        *operator([0, 2])]
    mismatch = clean()
    mismatch[-3] = gpu(1, False)  # the allocator shows GPU 1 idle under a running pod
    found["gpu-mismatch"] = mismatch
    no_operator = [pod(f"{NEW}-k2x9p", "vllm", ("ReplicaSet", NEW), tf=False, gpu_index=None),
                   pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=False, gpu_index=None),
                   pod("trainer-0", "trainer", TRAINER, tf=False, gpu_index=None),
                   replicaset(OLD, 1, 0, False), replicaset(NEW, 2, 2, True)]
    for item in no_operator[:3]:  # the label is in the template; no webhook mutated the pods
        item["metadata"]["labels"]["tensor-fusion.ai/enabled"] = "true"
        item["metadata"]["annotations"]["tensor-fusion.ai/isolation"] = "shared"
    found["no-operator"] = no_operator
    found["insufficient-tflops"] = insufficient_tflops()
    found["capped"] = capped()
    return found


def as_list(items: list[dict[str, Any]]) -> str:
    return dump_documents([{"apiVersion": "v1", "kind": "List", "metadata": {
        "resourceVersion": ""}, "items": copy.deepcopy(items)}])


def main() -> int:
    for name, items in scenarios().items():
        (HERE / "snapshots" / f"{name}.yaml").write_text(as_list(items), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
