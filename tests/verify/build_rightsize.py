"""Writes the rightsize snapshots under ``snapshots/rightsize-*.yaml`` (run by hand, then
review the diff): what ``kubectl get pods,replicasets,events,gpus,gpunodes,gpupools -A -o
yaml`` prints after step 08 (rightsize-100) of ``rightsize-example`` over
``manifests.yaml``, on two nodes of two A100 each (``rightsize-inventory.yaml``).

The pods carry the share the webhook writes back (NexusGPU/tensor-fusion
internal/utils/compose.go:185-218); a GPU's ``available`` is its capacity minus the
requests the allocator committed on it (internal/gpuallocator/gpuallocator.go:1311),
0/0 under a pod still admitted with ``isolation: shared``. The takeover's revision is
the old ReplicaSet, the rightsize's the new one.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.verify.build_snapshots import (
    HERE,
    NEW,
    OLD,
    TRAINER,
    UUIDS,
    as_list,
    gpu,
    gpupool,
    pod,
    replicaset,
    rightsized,
)

NODES = ("gpu-node-a", "gpu-node-a", "gpu-node-b", "gpu-node-b")  # per GPU index
CAPACITY = (312, 81920)  # TFLOPS, MiB: an A100 SXM 80G


def placed_gpu(index: int, shares: list[tuple[int, int]] | None) -> dict[str, Any]:
    """GPU ``index`` on its node; ``shares``: the (TFLOPS, MiB) requests committed on it,
    None: taken whole (a shared pod)."""
    item = gpu(index, shares is None)
    node = NODES[index]
    item["metadata"]["labels"]["tensor-fusion.ai/managed-by"] = node
    item["metadata"]["ownerReferences"][0]["name"] = node
    item["status"]["nodeSelector"] = {"kubernetes.io/hostname": node}
    if shares:
        tflops = CAPACITY[0] - sum(t for t, _ in shares)
        vram = CAPACITY[1] - sum(v for _, v in shares)
        item["status"]["available"] = {"tflops": str(tflops), "vram": f"{vram}Mi"}
        item["status"]["activeIsolationMode"] = "soft"
    return item


def gpunodes() -> list[dict[str, Any]]:
    found = []
    for node in sorted(set(NODES)):
        found.append({"apiVersion": "tensor-fusion.ai/v1", "kind": "GPUNode", "metadata": {
            "name": node, "labels": {"tensor-fusion.ai/managed-by": "tensor-fusion-shared"}},
            "status": {"phase": "Running", "totalGPUs": 2, "managedGPUs": 2}})
    return found


def on(item: dict[str, Any], index: int) -> dict[str, Any]:
    """``item`` placed on GPU ``index`` (its node, its gpu-ids)."""
    notes = item["metadata"]["annotations"]
    notes["tensor-fusion.ai/gpu-ids"] = UUIDS[index].lower()
    notes["tensor-fusion.ai/index"] = str(index)
    item["spec"]["nodeName"] = NODES[index]
    return item


SHARE = (30, 8192)  # rightsize-example: 30 TFLOPS, 8Gi per pod


def vllm(suffix: str, index: int, revision: str = NEW) -> dict[str, Any]:
    return on(rightsized(pod(f"{revision}-{suffix}", "vllm", ("ReplicaSet", revision),
                             tf=True, gpu_index=None)), index)


def trainer(index: int) -> dict[str, Any]:
    return on(rightsized(pod("trainer-0", "trainer", TRAINER, tf=True, gpu_index=None)), index)


def whole(item: dict[str, Any]) -> dict[str, Any]:
    """The pod as takeover admitted it: a whole card, no share annotations."""
    notes = item["metadata"]["annotations"]
    for key in ("tflops-request", "tflops-limit", "vram-request", "vram-limit"):
        notes.pop(f"tensor-fusion.ai/{key}")
    notes["tensor-fusion.ai/isolation"] = "shared"
    return item


def fleet(gpus: dict[int, list[tuple[int, int]] | None]) -> list[dict[str, Any]]:
    return [gpupool(), *gpunodes(), *(placed_gpu(i, gpus.get(i, [])) for i in range(4))]


def sets(old: int, new: int) -> list[dict[str, Any]]:
    return [replicaset(OLD, 2, old, True), replicaset(NEW, 3, new, True)]


def ready() -> list[dict[str, Any]]:
    """Every pod at the policy's share, packed on one GPU as the plan packs them."""
    return [vllm("k2x9p", 0), vllm("q7w4z", 0), trainer(0), *sets(0, 2),
            *fleet({0: [SHARE] * 3})]


def old_share() -> list[dict[str, Any]]:
    """Mid-rollout: one pod of the takeover's revision still holds a whole card."""
    return [vllm("k2x9p", 0), whole(vllm("h5n2c", 1, OLD)), trainer(0), *sets(1, 1),
            *fleet({0: [SHARE] * 2, 1: None})]


def other_share() -> list[dict[str, Any]]:
    """The rollout done, one pod of the new revision at 20 TFLOPS, not the policy's 30."""
    other = rightsized(pod(f"{NEW}-q7w4z", "vllm", ("ReplicaSet", NEW), tf=True,
                           gpu_index=None), tflops="20")
    return [vllm("k2x9p", 0), on(other, 0), trainer(0), *sets(0, 2),
            *fleet({0: [SHARE, (20, 8192), SHARE]})]


def whole_card_taken() -> list[dict[str, Any]]:
    """Every pod at its share, yet GPU 0 reports itself taken whole."""
    items = ready()
    items[-4] = placed_gpu(0, None)
    return items


def oom_killed() -> list[dict[str, Any]]:
    """A vllm pod killed for memory twice under its 16Gi vram-limit, running again."""
    items = ready()
    container = items[0]["status"]["containerStatuses"][0]
    container["restartCount"] = 2
    container["lastState"] = {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}
    return items


def spread() -> list[dict[str, Any]]:
    """Every pod at its share, one per GPU across both nodes: nothing packed."""
    return [vllm("k2x9p", 0), vllm("q7w4z", 2), trainer(1), *sets(0, 2),
            *fleet({0: [SHARE], 1: [SHARE], 2: [SHARE]})]


def rolling_back() -> list[dict[str, Any]]:
    """Back to step 04 (takeover-100) after the rightsize: the takeover's template is the
    new revision, whole cards; one pod of the rightsize's revision still runs at its share."""
    return [whole(vllm("k2x9p", 1)), vllm("h5n2c", 0, OLD), whole(trainer(2)), *sets(1, 1),
            *fleet({0: [SHARE], 1: None, 2: None})]


def scenarios() -> dict[str, list[dict[str, Any]]]:
    return {"rightsize-ready": ready(), "rightsize-old-share": old_share(),
            "rightsize-other-share": other_share(),
            "rightsize-whole-card": whole_card_taken(), "rightsize-oom": oom_killed(),
            "rightsize-spread": spread(), "rightsize-rolling-back": rolling_back()}


def main() -> int:
    for name, items in scenarios().items():
        (HERE / "snapshots" / f"{name}.yaml").write_text(as_list(items), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
