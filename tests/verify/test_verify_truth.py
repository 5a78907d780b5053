"""Verdicts that tell the truth (issue 27): each case is a realistic snapshot, built with the
snapshot builder's own objects, run through ``tfpolicy verify`` as a user runs it."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "verify"
TIMEOUT = ('Internal error occurred: failed calling webhook "mpod.tensor-fusion.ai": failed to '
           'call webhook: Post "https://tensor-fusion-webhook.tensor-fusion-sys.svc:443/'
           'mutate-v1-pod?timeout=10s": context deadline exceeded')


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_snapshots", HERE / "build_snapshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


B = _builder()


def _write(tmp_path: Path, items: list[dict[str, Any]]) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(B.as_list(items), encoding="utf-8")
    return str(path)


def _verify(capsys: pytest.CaptureFixture[str], *args: str,
            manifests: str = str(HERE / "manifests.yaml"),
            policy: str = "takeover") -> tuple[int, dict[str, Any]]:
    code = main(["verify", "-p", policy, manifests, "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def _vllm(report: dict[str, Any]) -> dict[str, Any]:
    return next(w for w in report["workloads"] if w["workload"] == "Deployment/ml-serving/vllm")


_THREE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: ml-serving}
spec:
  replicas: 3
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        resources: {limits: {nvidia.com/gpu: 1}}
"""
_PERCENT = """apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: thirds}
spec:
  stage: rightsize
  resources:
    computePercent: {request: "33", limit: "33"}
    vram: {request: 8Gi, limit: 8Gi}
"""


def test_compute_percent_is_of_the_capacity_not_of_what_is_left(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Three 33 % pods on one 312-TFLOPS A100 take 3 × int(0.33 × 312) = 306 TFLOPS: 6 left.
    (tmp_path / "vllm.yaml").write_text(_THREE, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(_PERCENT, encoding="utf-8")
    pods = []
    for suffix in ("a1b2c", "d3e4f", "g5h6i"):
        pod = B.pod(f"{B.NEW}-{suffix}", "vllm", ("ReplicaSet", B.NEW), tf=True, gpu_index=0)
        pod["metadata"]["annotations"].update({
            "tensor-fusion.ai/isolation": "soft", "tensor-fusion.ai/compute-percent-request": "33",
            "tensor-fusion.ai/compute-percent-limit": "33", "tensor-fusion.ai/vram-request": "8Gi",
            "tensor-fusion.ai/vram-limit": "8Gi"})
        pods.append(pod)
    card = B.gpu(0, False)
    card["status"]["available"] = {"tflops": "6", "vram": f"{81920 - 3 * 8192}Mi"}
    items = [*pods, B.replicaset(B.OLD, 1, 0, False), B.replicaset(B.NEW, 2, 3, True),
             B.gpupool(), B.gpunode(1), card, *(B.gpu(i, False) for i in (1, 2, 3))]
    code, report = _verify(capsys, "--cluster", _write(tmp_path, items),
                           manifests=str(tmp_path / "vllm.yaml"),
                           policy=str(tmp_path / "policy.yaml"))
    first = report["gpus"][[g["name"] for g in report["gpus"]].index(B.UUIDS[0].lower())]
    assert first["expected"] == {"tflops": 6, "vramMiB": 81920 - 3 * 8192}
    assert first["verdict"] == "ready" and report["verdict"] == "ready" and code == 0


@pytest.mark.parametrize("message", [
    TIMEOUT,
    'failed calling webhook "mpod.tensor-fusion.ai": connect: connection refused',
    'Internal error occurred: failed calling webhook "x": Post "https://tf-webhook.tf.svc:443/'
    'mutate-v1-pod?timeout=10s": EOF'])
def test_a_failure_of_tensor_fusions_webhook_is_a_stop_whatever_its_wording(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], message: str) -> None:
    items = B.scenarios()["rejected"]
    event = next(i for i in items if i["kind"] == "Event")
    event["message"] = message
    code, report = _verify(capsys, "--cluster", _write(tmp_path, items), "--step", "4")
    problems = {p["subject"]: p for p in _vllm(report)["problems"]}
    assert problems[f"ReplicaSet/{B.NEW}"]["verdict"] == "stop"
    assert report["verdict"] == "stop" and code == 1


def test_another_webhooks_timeout_is_not_tensor_fusions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = B.scenarios()["rejected"]
    event = next(i for i in items if i["kind"] == "Event")
    event["message"] = ('Internal error occurred: failed calling webhook "validate.kyverno.svc":'
                        ' context deadline exceeded')
    code, report = _verify(capsys, "--cluster", _write(tmp_path, items), "--step", "4")
    assert report["verdict"] == "wait" and code == 75


def test_an_unschedulable_shared_pod_names_the_freest_gpu_and_what_it_lacks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = B.scenarios()["pending"]
    # Another team's pod holds 112 TFLOPS and 40 GiB of the one card not held whole.
    other = B.rightsized(B.pod("notebook-7", "notebook", ("ReplicaSet", "notebook-5c6d7e8f9"),
                               tf=True, gpu_index=1), tflops="112", vram="40Gi")
    other["metadata"]["namespace"] = "research"
    card = next(i for i in items if i["kind"] == "GPU" and i["metadata"]["name"] ==
                B.UUIDS[1].lower())
    card["status"]["available"] = {"tflops": "200", "vram": "40960Mi"}
    items = [B.device_plugin_gpu(3) if i["kind"] == "GPU" and i["metadata"]["name"] ==
             B.UUIDS[3].lower() else i for i in items]  # the last idle card: the device plugin's
    code, report = _verify(capsys, "--cluster", _write(tmp_path, [*items, other]))
    said = [p["message"] for p in _vllm(report)["problems"]
            if p["subject"] == "Deployment/ml-serving/vllm"]
    assert said == [f"each pod asks 1 whole idle GPU(s) (isolation shared); no GPU of its pool "
                    f"is idle: the freest ({B.UUIDS[1].lower()}) has 200 of 312 TFLOPS and "
                    "40960 of 81920 MiB free: it lacks 112 TFLOPS and 40960 MiB to be idle"]
    assert code == 1


def test_a_pod_on_a_gpu_the_snapshot_lacks_is_not_ready(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = B.clean()
    items[0]["metadata"]["annotations"]["tensor-fusion.ai/gpu-ids"] = "gpu-not-in-the-cluster"
    code, report = _verify(capsys, "--cluster", _write(tmp_path, items))
    problems = {p["subject"]: p for p in _vllm(report)["problems"]}
    assert problems[f"{B.NEW}-k2x9p"]["verdict"] == "stop"
    assert "gpu-not-in-the-cluster" in problems[f"{B.NEW}-k2x9p"]["message"]
    assert code == 1


def test_a_pod_that_sees_fewer_gpus_than_it_asks_is_not_ready(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two = (HERE / "manifests.yaml").read_text(encoding="utf-8").replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 2", 1)
    (tmp_path / "two.yaml").write_text(two, encoding="utf-8")
    items = B.clean()
    for pod in items[:2]:
        pod["metadata"]["annotations"]["tensor-fusion.ai/gpu-count"] = "2"
    code, report = _verify(capsys, "--cluster", _write(tmp_path, items),
                           manifests=str(tmp_path / "two.yaml"))
    stops = [p for p in _vllm(report)["problems"] if p["verdict"] == "stop"]
    assert sorted(p["subject"] for p in stops) == [f"{B.NEW}-k2x9p", f"{B.NEW}-q7w4z"]
    assert all("asks 2 GPUs, its gpu-ids give it 1" in p["message"] for p in stops)
    assert code == 1


@pytest.mark.parametrize(("snapshot", "verdict", "code"), [
    ("clean", "ready", 0), ("partial", "wait", 75), ("pending", "stop", 1)])
def test_each_verdict_has_its_own_exit_code(snapshot: str, verdict: str, code: int) -> None:
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover",
                           str(HERE / "manifests.yaml"), "--cluster",
                           str(HERE / "snapshots" / f"{snapshot}.yaml")],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == code, done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith("verify step ")]
    assert said[0].startswith(f"verify step 04 takeover-100: {verdict}")


def test_the_text_names_the_rollback_first_puts_problems_first_and_dates_the_snapshot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = copy.deepcopy(B.scenarios()["pending"])
    items[0]["metadata"]["creationTimestamp"] = "2026-12-01T07:45:12Z"  # the newest object
    path = _write(tmp_path, items)
    code = main(["verify", "-p", "takeover", str(HERE / "manifests.yaml"), "--cluster", path])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[0] == ("verify step 04 takeover-100: stop: roll back: apply the policy of step "
                      "03 (takeover-50): 03-takeover-50.yaml from `tfpolicy plan "
                      "--emit-policies`")
    assert out[1] == (f"snapshot: {path}; its latest object time 2026-12-01T07:45:12Z; "
                      "GPU pools: tensor-fusion-shared; GPU nodes: 1")
    verdicts = [line.split(": ")[1].split(" ")[0] for line in out
                if line.startswith(("Deployment/", "StatefulSet/"))]
    assert verdicts == sorted(verdicts, key=["stop", "wait", "ready"].index)


def test_problem_workloads_come_first_in_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    main(["verify", "-p", "takeover", str(HERE / "multi.yaml"), "--cluster",
          str(HERE / "snapshots" / "multi-mixed.yaml")])
    lines = [line for line in capsys.readouterr().out.splitlines()
             if "(TensorFusion pods" in line]
    verdicts = [line.split(": ")[1].split(" ")[0] for line in lines]
    assert verdicts == sorted(verdicts, key=["stop", "wait", "ready"].index)
    assert set(verdicts) == {"stop", "wait", "ready"}
