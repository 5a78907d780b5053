"""Cluster snapshots of the rightsize rungs of ``manifests.yaml`` (tests/verify), built with
verify's own builder (``tests/verify/build_snapshots.py``): what ``kubectl get pods,
replicasets,events,gpus,gpunodes,gpupools -A -o yaml`` prints once the operator placed the
rung's pods. A TensorFusion pod carries the policy's shares (30/60 TFLOPS, 8Gi/16Gi VRAM);
its GPU's ``available`` is the card less the requests (the limiter's accounting); a pod over
the ``enabled-replicas`` cap runs on the device plugin with its whole card."""

from __future__ import annotations

import copy
from typing import Any

from tests.promote.promote_repo import SNAPSHOTS as B

TFLOPS, VRAM = 30, 8  # per pod: the requests of RIGHTSIZE below


RIGHTSIZE = """\
# What `tfpolicy recommend` wrote: per GPU, the share each workload needs.
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata:
  name: rightsize
spec:
  stage: rightsize
  resources:
    tflops: {request: "30", limit: "60"}
    vram: {request: 8Gi, limit: 16Gi}
"""
AUTOSCALED = RIGHTSIZE + "  autoscale: {target: all}\n"


def rightsized(item: dict[str, Any]) -> dict[str, Any]:
    return B.rightsized(item)


def _shared(index: int, pods: int) -> dict[str, Any]:
    """GPU ``index`` holding ``pods`` rightsized pods: the card less their requests."""
    item = B.gpu(index, False)
    item["status"]["available"] = {"tflops": str(312 - TFLOPS * pods),
                                   "vram": f"{81920 - VRAM * 1024 * pods}Mi"}
    item["status"]["activeIsolationMode"] = "soft"
    return item


def shares(capped: bool) -> list[dict[str, Any]]:
    """Steps 05–07 (``capped``: one vllm pod rightsized, the other on the device plugin over
    the cap) or 08 (every pod rightsized), the rightsized pods packed on GPU 0."""
    new = B.NEW
    first = rightsized(B.pod(f"{new}-k2x9p", "vllm", ("ReplicaSet", new), tf=True,
                             gpu_index=0))
    trainer = rightsized(B.pod("trainer-0", "trainer", B.TRAINER, tf=True, gpu_index=0))
    if capped:
        second = B.pod(f"{new}-q7w4z", "vllm", ("ReplicaSet", new), tf=False, gpu_index=None)
        second["metadata"]["labels"]["tensor-fusion.ai/enabled"] = "true"
        second["metadata"]["annotations"]["tensor-fusion.ai/enabled-replicas"] = "1"
        gpus = [_shared(0, 2), B.device_plugin_gpu(1), B.gpu(2, False), B.gpu(3, False)]
    else:
        second = rightsized(B.pod(f"{new}-q7w4z", "vllm", ("ReplicaSet", new), tf=True,
                                  gpu_index=0))
        gpus = [_shared(0, 3), *(B.gpu(i, False) for i in (1, 2, 3))]
    return [first, second, trainer, B.replicaset(B.OLD, 1, 0, False),
            B.replicaset(new, 2, 2, True), B.gpupool(), B.gpunode(1), *gpus]


def oom_killed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first vllm pod OOM-killed under its vram-limit and running again: a stop."""
    items = copy.deepcopy(items)
    status = items[0]["status"]["containerStatuses"][0]
    status.update({"restartCount": 2, "lastState": {"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": B.T0,
        "finishedAt": "2026-11-30T09:10:00Z"}}})
    return items


def autoscaled(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Step 09: the same shares, the pods marked for TensorFusion's autoscaler."""
    items = copy.deepcopy(items)
    for item in items:
        if item["kind"] == "Pod":
            item["metadata"]["annotations"].update({"tensor-fusion.ai/autoscale": "true",
                                                    "tensor-fusion.ai/autoscale-target": "all"})
    return items
