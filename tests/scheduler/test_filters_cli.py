"""The operator's capability and whole-GPU filters, and Ascend NPUs, through the real CLI.

Upstream: NexusGPU/tensor-fusion at 3e0a4901. `GPUIsolationModeFilter` drops a
GPU whose `tensor-fusion.ai/virtualization-capabilities` annotation does not
allow the pod's isolation (`internal/gpuallocator/filter/gpu_isolation_mode_filter.go:29`,
`:56-76`); `SharedWholeGPUFilter` drops a GPU with `status.allocatedPartitions`
entries (`filter/shared_whole_gpu_filter.go:28-30`). Ascend NPUs are GPUs to
the webhook once a ProviderConfig lists their resource names
(`config/samples/provider-ascend.yaml:57-61`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "filters"
CAPS = "tensor-fusion.ai/virtualization-capabilities"
SOFT_ONLY = json.dumps({"SupportsSoftIsolation": True, "SupportsPartitioning": True})
SOFT_AND_HARD = json.dumps({"SupportsSoftIsolation": True, "SupportsHardIsolation": True})

ONE_GPU_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: i
        resources: {limits: {nvidia.com/gpu: 1}}
"""
HARD_POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: hard}
spec:
  stage: rightsize
  isolation: hard
  resources:
    tflops: {request: "30", limit: "30"}
    vram: {request: 8Gi, limit: 8Gi}
"""


def _gpu(name: str, node: str, caps: str | None = None,
         partitions: dict[str, Any] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": {"tensor-fusion.ai/gpupool": "p"}}
    if caps is not None:
        metadata["annotations"] = {CAPS: caps}
    status: dict[str, Any] = {
        "phase": "Running", "vendor": "NVIDIA", "gpuModel": "NVIDIA L4", "index": 0,
        "nodeSelector": {"kubernetes.io/hostname": node},
        "capacity": {"tflops": "121", "vram": "24Gi"},
        "available": {"tflops": "121", "vram": "24Gi"}}
    if partitions is not None:
        status["allocatedPartitions"] = partitions
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPU", "metadata": metadata,
            "status": status}


def _inventory(tmp_path: Path, gpus: list[dict[str, Any]]) -> str:
    pool = {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPUPool",
            "metadata": {"name": "p", "annotations": {"tensor-fusion.ai/is-default-pool": "true"}}}
    path = tmp_path / "inventory.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [pool, *gpus]}))
    return str(path)


def _plan(tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str, inventory: str,
          manifests: str, *more: str) -> tuple[int, dict[str, Any]]:
    given = tmp_path / "manifests.yaml"
    given.write_text(manifests)
    code = main(["plan", "-p", policy, "--inventory", inventory, *more, "--format", "json",
                 str(given)])
    return code, json.loads(capsys.readouterr().out)


def _failures(plan: dict[str, Any]) -> list[tuple[str, str, dict[str, int]]]:
    return [(step["name"], u["message"], {r["reason"]: r["nodes"] for r in u["reasons"]})
            for step in [plan["start"], *plan["steps"]] for u in step["unschedulable"]]


PARTITION = {"uid-1": {"templateId": "nv-a30-1g-6gb", "podUid": "uid-1", "podName": "embed-0",
                       "namespace": "ml"}}


def test_shared_pod_skips_a_gpu_with_allocated_partitions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpu_isolation_mode_filter_test.go:140 (:147-150): available equals capacity,
    yet the recorded partition keeps the shared surge pod off node-b."""
    inventory = _inventory(tmp_path, [_gpu("a0", "node-a"),
                                      _gpu("b0", "node-b", partitions=PARTITION)])
    code, plan = _plan(tmp_path, capsys, "takeover", inventory, ONE_GPU_DEPLOYMENT)
    assert code == 1 and not plan["fits"]
    ((step, message, reasons),) = _failures(plan)
    assert step == "takeover-1"
    assert message == ("0/2 nodes are available: 1 GPU has allocated partitions, "
                       "1 GPU used by the device plugin.")
    assert reasons == {"GPU has allocated partitions": 1, "GPU used by the device plugin": 1}
    gpus = plan["start"]["gpus"]  # the partition's pod runs outside the plan: not idle
    assert (gpus["devicePlugin"], gpus["tensorFusion"], gpus["idle"]) == (1, 1, 0)


def test_without_the_partition_the_same_plan_fits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = _inventory(tmp_path, [_gpu("a0", "node-a"), _gpu("b0", "node-b", partitions={})])
    code, plan = _plan(tmp_path, capsys, "takeover", inventory, ONE_GPU_DEPLOYMENT)
    assert (code, plan["fits"], _failures(plan)) == (0, True, [])


def test_device_plugin_pod_does_not_take_a_partitioned_gpu(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A GPU holding a partition is not free for a whole-card device-plugin pod either."""
    inventory = _inventory(tmp_path, [_gpu("b0", "node-b", partitions=PARTITION)])
    code, plan = _plan(tmp_path, capsys, "takeover", inventory, ONE_GPU_DEPLOYMENT)
    assert code == 1
    assert _failures(plan)[0][0] == "start"
    assert _failures(plan)[0][2] == {"insufficient free whole GPUs": 1}


def _hard_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str],
               caps: list[str | None]) -> tuple[int, dict[str, Any]]:
    policy = tmp_path / "hard.yaml"
    policy.write_text(HARD_POLICY)
    gpus = [_gpu(f"g{i}", f"node-{i}", c) for i, c in enumerate(caps)]
    return _plan(tmp_path, capsys, str(policy), _inventory(tmp_path, gpus), ONE_GPU_DEPLOYMENT)


def test_hard_pod_is_not_placed_on_gpus_that_cannot_do_hard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpu_isolation_mode_filter_test.go:14 and :79: hard needs SupportsHardIsolation.
    The takeover steps (shared) fit on the same GPUs: shared never asks (:57-58).
    The shared pod still holds one GPU, locked to shared by the Dynamic policy."""
    code, plan = _hard_plan(tmp_path, capsys, [SOFT_ONLY, SOFT_ONLY, SOFT_ONLY])
    assert code == 1
    ((step, message, reasons),) = _failures(plan)
    assert step == "rightsize-1"
    assert message == ("0/3 nodes are available: 2 GPU cannot do the requested isolation, "
                       "1 GPU isolation mode conflict.")
    assert reasons == {"GPU cannot do the requested isolation": 2,
                       "GPU isolation mode conflict": 1}
    assert [s["status"] for s in plan["steps"][:4]] == ["fits"] * 4


@pytest.mark.parametrize("allowing", [
    SOFT_AND_HARD,
    None,  # no annotation: legacy, every mode (gpu_isolation_mode_filter_test.go:59)
    "not json",  # undecodable: no metadata (virtualization_capabilities.go:32-34)
])
def test_hard_pod_fits_where_a_gpu_allows_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], allowing: str | None) -> None:
    """Two GPUs allow hard, so one is left whichever the shared pod holds."""
    code, plan = _hard_plan(tmp_path, capsys, [SOFT_ONLY, allowing, allowing])
    assert (code, plan["fits"], _failures(plan)) == (0, True, [])


def test_a_bad_annotation_is_refused_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpu = _gpu("g0", "node-0")
    gpu["metadata"]["annotations"] = {CAPS: {"SupportsHardIsolation": True}}  # not a string
    manifests = tmp_path / "m.yaml"
    manifests.write_text(ONE_GPU_DEPLOYMENT)
    code = main(["plan", "-p", "takeover", "--inventory", _inventory(tmp_path, [gpu]),
                 str(manifests)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert f"annotation {CAPS} must be a string (GPU g0 metadata.annotations)" in captured.err


# Ascend: apply, admission and plan.

def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         *args: str) -> tuple[int, str]:
    monkeypatch.chdir(ROOT)
    code = main(list(args))
    return code, capsys.readouterr().out


ASCEND = HERE / "ascend-workloads.yaml"
PROVIDER = HERE / "provider-ascend.yaml"
NPU_INVENTORY = HERE / "inventory-ascend.yaml"


def test_apply_migrates_ascend_workloads(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """With the provider's resource names, both workloads are taken over (label and
    shared isolation) and keep their NPU limits, as takeover keeps GPU limits."""
    code, out = _run(capsys, monkeypatch, "apply", "-p", str(HERE / "ascend-policy.yaml"),
                     str(ASCEND))
    assert code == 0
    docs = list(yaml.safe_load_all(out))
    assert [d["kind"] for d in docs] == ["Deployment", "StatefulSet"]
    for doc, resource in zip(docs, ["huawei.com/Ascend310P", "huawei.com/npu"], strict=True):
        template = doc["spec"]["template"]
        assert template["metadata"]["labels"]["tensor-fusion.ai/enabled"] == "true"
        assert template["metadata"]["annotations"]["tensor-fusion.ai/isolation"] == "shared"
        assert template["spec"]["containers"][0]["resources"]["limits"] == {resource: 1}


def test_webhook_with_the_ascend_provider_strips_the_npu_resource(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The webhook reads the vendor from the ProviderConfig and removes the names it
    lists (tf_parser.go native-limit scan; reference §2.2)."""
    _, applied = _run(capsys, monkeypatch, "apply", "-p", str(HERE / "ascend-policy.yaml"),
                      str(ASCEND))
    given = tmp_path / "applied.yaml"
    given.write_text(applied)
    code, out = _run(capsys, monkeypatch, "admission", "--operator-config", str(PROVIDER),
                     "--format", "json", str(given))
    assert code == 0
    report = json.loads(out)
    assert [w["decision"] for w in report["workloads"]] == ["tensor-fusion", "tensor-fusion"]
    for workload in report["workloads"]:
        assert workload["allocation"]["vendor"] == "Ascend"
        removed = {c["path"] for c in workload["changes"] if c["op"] == "remove"}
        assert any("huawei.com/" in path for path in removed), removed
    code, out = _run(capsys, monkeypatch, "admission", "--format", "json", str(given))
    chart_only = json.loads(out)["workloads"]  # the chart's NVIDIA provider only
    assert all(not any("huawei.com/" in c["path"] for c in w["changes"]) for w in chart_only)


def _npu_plan(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
              inventory: Path) -> tuple[int, dict[str, Any]]:
    code, out = _run(capsys, monkeypatch, "plan", "-p", "takeover", "--operator-config",
                     str(PROVIDER), "--inventory", str(inventory), "--format", "json",
                     str(ASCEND))
    return code, json.loads(out)


def test_plan_schedules_ascend_pods_on_ascend_gpus(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, plan = _npu_plan(capsys, monkeypatch, NPU_INVENTORY)
    assert (code, plan["fits"]) == (0, True)
    assert plan["start"]["pods"]["devicePlugin"] == 3  # 2 + 1 NPUs before the migration
    last = plan["steps"][-1]
    assert last["name"] == "takeover-100"
    assert (last["pods"]["tensorFusion"], last["pods"]["devicePlugin"]) == (3, 0)
    assert last["gpus"]["tensorFusion"] == 3


def test_plan_keeps_ascend_pods_off_nvidia_gpus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pods carry `vendor: Ascend`; GPUVendorFilter compares it with status.vendor."""
    data = yaml.safe_load(NPU_INVENTORY.read_text())
    for item in data["items"]:
        if item["kind"] == "GPU":
            item["status"]["vendor"] = "NVIDIA"
    nvidia = tmp_path / "nvidia.yaml"
    nvidia.write_text(yaml.safe_dump(data))
    code, plan = _npu_plan(capsys, monkeypatch, nvidia)
    assert code == 1
    reasons = {r for _, _, found in _failures(plan) for r in found}
    assert reasons == {"GPU vendor mismatch"}
