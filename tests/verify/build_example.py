"""Writes ``examples/cluster/after-takeover.yaml`` (run by hand, then review the diff): the
bundled examples as ``kubectl get pods,replicasets,events,gpus,gpunodes,gpupools -A -o yaml``
would print them once the takeover step (``-p takeover``, step 04 takeover-100) rolled out.

Each pod is its template as the webhook admits it (tfpolicy's admission simulation) with
the controller's ownerReference, the scheduler's ``gpu-ids`` and a Running status; every
shared pod holds whole idle GPUs of one node, which then show 0/0 available (reference
§5.4). The native ``realtime-asr`` pods (opted out) run on the T4 nodes outside the pool,
which have no GPU objects. One reranker pod is still Pending: the demo shows a ``wait``.

``build_example.py TARGET takeover-1-soaked`` writes ``examples/cluster/takeover-1-soaked.yaml``
instead: step 01 (takeover-1) synced, each pod admitted as the webhook counts it (the first
ones under enabled-replicas TensorFusion pods, the rest native), every pod ready since 09:00
and the operator's last sync at 09:20, so ``tfpolicy promote`` finds the rung soaked.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfpolicy.admission import Admission, admit
from tfpolicy.admission.config import AdmissionContext
from tfpolicy.files.documents import read_documents
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.plan import DEFAULT_LADDER
from tfpolicy.plan.ladder import policy_set, step_documents
from tfpolicy.plan.simulate import gpu_units
from tfpolicy.plan.templates import step_templates
from tfpolicy.records import replace
from tfpolicy.scheduler import GPU, Inventory
from tfpolicy.verify.expect import expect
from tfpolicy.yamlio import dump_documents

ROOT = Path(__file__).resolve().parents[2]
T0 = "2026-11-30T09:00:00Z"
POOL = "tensor-fusion-shared"
PENDING = "reranker"  # its last pod waits for the scheduler


def uid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"tfpolicy-example/{name}"))


def gpu_name(gpu: GPU) -> str:
    return "gpu-" + uid(gpu.name)


@dataclass(frozen=True, slots=True)
class Scenario:
    """Which step the cluster runs, which pod still waits, and the operator's last sync."""

    refs: tuple[str, ...]
    step: int | None  # None: the ladder's last step
    pending: str  # the workload whose last pod waits ('' none)
    synced: str  # the GPU objects' last-sync time ('' none written)
    header: str


SCENARIOS = {
    "after-takeover": Scenario(("takeover",), None, PENDING, "", (
        "# The bundled examples after the takeover step, as kubectl prints them; built by\n"
        "# tests/verify/build_example.py. Try:\n#   tfpolicy verify -p takeover --inventory "
        "examples/inventory.yaml examples/manifests \\\n"
        "#     --cluster examples/cluster/after-takeover.yaml\n")),
    "takeover-1-soaked": Scenario(("takeover",), 1, "", "2026-11-30T09:20:00Z", (
        "# The bundled examples at step 01 (takeover-1), synced, every pod ready since 09:00\n"
        "# and the operator's last sync at 09:20, as kubectl prints them; built by\n"
        "# tests/verify/build_example.py. With the manifests at takeover-1 in git (committed\n"
        "# before 09:20), `tfpolicy promote --inventory examples/inventory.yaml --cluster\n"
        "# examples/cluster/takeover-1-soaked.yaml --commit` advances to takeover-25.\n")),
    "takeover-soaked": Scenario(("takeover",), None, "", "2026-11-30T09:20:00Z", (
        "# The bundled examples after the takeover step, every pod ready since 09:00 (for\n"
        "# tests: `tfpolicy promote` at the last rung says done); built by\n"
        "# tests/verify/build_example.py.\n")),
}


def main(target: Path = ROOT / "examples" / "cluster" / "after-takeover.yaml",
         scenario: str = "after-takeover") -> int:
    chosen = SCENARIOS[scenario]
    refs = chosen.refs
    docs = read_documents((str(ROOT / "examples" / "manifests"),))
    fleet = read_inventory(str(ROOT / "examples" / "inventory.yaml"))
    read = policy_documents(refs)
    given = plan_input(docs, read, fleet, Cluster(None, None, (), "default"), DEFAULT_LADDER)
    policy_docs, shown, webhook = list(read.documents), read.shown, given.webhook
    planned = expect(given, chosen.step)
    units = gpu_units(docs, policy_set(list(policy_docs), shown, webhook.resources), given)
    found = policy_set(step_documents(list(policy_docs), planned.step), shown, webhook.resources)
    templates, _ = step_templates(docs, units, found, "default")
    free = [g for g in fleet.gpus if g.pool == POOL]
    items: list[dict[str, Any]] = []
    for unit in units:
        context = AdmissionContext(unit.namespace, unit.name, owner_kind=unit.kind,
                                   replicas=unit.replicas, webhook=webhook)
        admitted: list[Admission] = []
        for i in range(unit.replicas):  # the webhook's counter, pod by pod; equal pods shared
            admission = admit(templates[unit.key], replace(context, taken_over=i))
            admitted.append(next((a for a in admitted if a == admission), admission))
        items += _pods(unit.key, unit.kind, unit.namespace, unit.name, admitted, free, fleet,
                       chosen.pending)
    used = {i for item in items for i in
            str(item["metadata"]["annotations"].get("tensor-fusion.ai/gpu-ids", "")).split(",")}
    items += [_gpu(g, gpu_name(g) in used, chosen.synced) for g in fleet.gpus if g.pool == POOL]
    text = chosen.header + dump_documents([{"apiVersion": "v1", "kind": "List",
                             "metadata": {"resourceVersion": ""}, "items": items}])
    target.write_text(text, encoding="utf-8")
    return 0


def _pods(key: str, kind: str, namespace: str, name: str, admitted: list[Admission],
          free: list[GPU], fleet: Inventory, waiting: str) -> list[dict[str, Any]]:
    owner, labels, items = _owner(key, kind, name)
    replicas = len(admitted)
    if kind == "Deployment":
        assert admitted[0].pod is not None
        items.append(_replicaset(namespace, name, replicas, admitted[0].pod))
    found: list[dict[str, Any]] = []
    for i, admission in enumerate(admitted):
        pod, tf = admission.pod, admission.allocation is not None
        assert pod is not None
        pod_name = _pod_name(kind, owner[2], key, i)
        pending = name == waiting and i == replicas - 1
        gpus = [] if pending or not tf else _take(free, _count(pod))
        node = gpus[0].node if gpus else ("" if pending else _native_node(fleet, i))
        found.append(_pod(pod, pod_name, namespace, owner, labels, gpus, node, pending))
    return items + found


def _owner(key: str, kind: str, name: str) -> tuple[tuple[str, str, str], dict[str, str],
                                                   list[dict[str, Any]]]:
    if kind == "Deployment":
        return ("apps/v1", "ReplicaSet", f"{name}-{_hash(name)}"), {
            "pod-template-hash": _hash(name)}, []
    if kind == "CronJob":
        return ("batch/v1", "Job", f"{name}-29410560"), {}, []
    if kind == "PyTorchJob":
        role = key.rsplit("/", 1)[-1].lower()
        return ("kubeflow.org/v1", kind, name), {"training.kubeflow.org/replica-type": role}, []
    if kind == "RayCluster":
        return ("ray.io/v1", kind, name), {"ray.io/node-type": "worker",
                                           "ray.io/group": "gpu-workers"}, []
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return (api, kind, name), {}, []


def _hash(name: str) -> str:
    return uid(name).replace("-", "")[:10]


def _pod_name(kind: str, owner: str, key: str, i: int) -> str:
    if kind == "StatefulSet":
        return f"{owner}-{i}"
    if kind == "PyTorchJob":
        return f"{owner}-{key.rsplit('/', 1)[-1].lower()}-{i}"
    return f"{owner}-{_hash(f'{owner}/{i}')[:5]}"


def _count(pod: Mapping[str, Any]) -> int:
    return int(pod["metadata"]["annotations"].get("tensor-fusion.ai/gpu-count", "1"))


def _take(free: list[GPU], count: int) -> list[GPU]:
    """Whole idle GPUs of one node, first fit (shared pods take whole cards)."""
    for node in dict.fromkeys(g.node for g in free):
        here = [g for g in free if g.node == node]
        if len(here) >= count:
            for gpu in here[:count]:
                free.remove(gpu)
            return here[:count]
    raise SystemExit("the example inventory has no room: rebuild the scenario")


def _native_node(fleet: Inventory, i: int) -> str:
    outside = [n.name for n in fleet.nodes if n.name.startswith("t4")]
    return outside[i % len(outside)]


def _pod(admitted: Mapping[str, Any], name: str, namespace: str, owner: tuple[str, str, str],
         labels: dict[str, str], gpus: list[GPU], node: str, pending: bool) -> dict[str, Any]:
    meta = admitted["metadata"]
    notes = {k: v for k, v in (meta.get("annotations") or {}).items()
             if not k.startswith("tfpolicy.dev/")}
    if gpus:
        ids = ",".join(gpu_name(g) for g in gpus)
        notes["tensor-fusion.ai/gpu-ids"] = ids
        container = admitted["spec"]["containers"][0]["name"]
        notes["tensor-fusion.ai/container-gpus"] = f'{{"{container}":["{ids}"]}}'
    spec = dict(admitted["spec"])
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": namespace, "uid": uid(f"{namespace}/{name}"),
        "creationTimestamp": T0, "labels": {**(meta.get("labels") or {}), **labels},
        "annotations": notes, "ownerReferences": [{
            "apiVersion": owner[0], "kind": owner[1], "name": owner[2],
            "uid": uid(owner[2]), "controller": True, "blockOwnerDeletion": True}]},
        "spec": spec, "status": _pending() if pending else _running(spec)}


def _running(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {"phase": "Running", "hostIP": "10.0.0.21", "startTime": T0, "qosClass": "Burstable",
            "conditions": [{"type": t, "status": "True", "lastTransitionTime": T0}
                           for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
            "containerStatuses": [{"name": c["name"], "ready": True, "restartCount": 0,
                                   "image": c.get("image", ""),
                                   "state": {"running": {"startedAt": T0}}}
                                  for c in spec["containers"]]}


def _pending() -> dict[str, Any]:
    return {"phase": "Pending", "qosClass": "Burstable", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "SchedulerError",
        "message": "running PreBind plugin \"GPUResourcesFit\": Operation cannot be fulfilled "
                   "on pods: the object has been modified; please apply your changes to the "
                   "latest version and try again", "lastTransitionTime": T0}]}


def _replicaset(namespace: str, name: str, replicas: int, pod: Mapping[str, Any]
                ) -> dict[str, Any]:
    labels = dict(pod["metadata"].get("labels") or {})
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": f"{name}-{_hash(name)}", "namespace": namespace,
        "uid": uid(f"{name}-{_hash(name)}"),
        "annotations": {"deployment.kubernetes.io/revision": "2",
                        "deployment.kubernetes.io/desired-replicas": str(replicas)},
        "labels": {**labels, "pod-template-hash": _hash(name)},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                             "uid": uid(name), "controller": True,
                             "blockOwnerDeletion": True}]},
        "spec": {"replicas": replicas}, "status": {"replicas": replicas,
                                                   "readyReplicas": replicas}}


def _gpu(gpu: GPU, used: bool, synced: str) -> dict[str, Any]:
    capacity = {"tflops": str(gpu.tflops // 1000), "vram": f"{gpu.vram}Mi"}
    meta: dict[str, Any] = {"name": gpu_name(gpu), "labels": {
        "tensor-fusion.ai/gpupool": POOL, "tensor-fusion.ai/managed-by": gpu.node}}
    if synced:
        meta["annotations"] = {"tensor-fusion.ai/last-sync": synced}
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPU", "metadata": meta,
        "status": {"phase": "Running", "vendor": gpu.vendor, "gpuModel": gpu.model,
                   "uuid": gpu_name(gpu).removeprefix("gpu-").upper(),
                   "nodeSelector": {"kubernetes.io/hostname": gpu.node},
                   "capacity": capacity,
                   "available": {"tflops": "0", "vram": "0"} if used else capacity,
                   "usedBy": "tensor-fusion", "isolationPolicy": "Dynamic",
                   **({"activeIsolationMode": "shared"} if used else {})}}


if __name__ == "__main__":
    given = sys.argv[1:3]
    sys.exit(main(Path(given[0]), *given[1:]) if given else main())
