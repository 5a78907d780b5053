"""Kinds with several pod templates: each pod counts for its own template (``tfpolicy verify``).

Through the CLI's JSON on ``multi.yaml`` and the snapshots ``build_multi.py``
writes: KubeRay worker groups, a RayJob's cluster, PyTorchJob and MPIJob
replica types, LeaderWorkerSet leader and workers, Argo Rollout revisions.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "verify"
SNAPSHOTS = HERE / "snapshots"


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_multi", HERE / "build_multi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(capsys: pytest.CaptureFixture[str], snapshot: Path) -> tuple[int, dict[str, Any]]:
    code = main(["verify", "-p", "takeover", "--format", "json", str(HERE / "multi.yaml"),
                 "--cluster", str(snapshot)])
    return code, json.loads(capsys.readouterr().out)


def _pods(report: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: w["workload"] for w in report["workloads"] for p in w["pods"]}


def test_snapshots_are_what_the_builder_writes() -> None:
    builder = _builder()
    for name, items in builder.scenarios().items():
        written = (SNAPSHOTS / f"{name}.yaml").read_text(encoding="utf-8")
        assert written == builder.base.as_list(copy.deepcopy(items))


def test_every_pod_counts_for_its_own_template(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _report(capsys, SNAPSHOTS / "multi-clean.yaml")
    assert code == 0 and report["verdict"] == "ready"
    assert _pods(report) == {
        "llm-a100-group-worker-0k7p": "RayCluster/ray/llm/workerGroupSpecs-0",
        "llm-a100-group-worker-1k7p": "RayCluster/ray/llm/workerGroupSpecs-0",
        "llm-small-group-worker-0k7p": "RayCluster/ray/llm/workerGroupSpecs-1",
        "batch-infer-x7k2p-gpu-group-worker-0k7p": "RayJob/ray/batch-infer/workerGroupSpecs-0",
        "chat-84c9d6f7b5-m4x8z": "Rollout/ml-serving/chat",
        "chat-84c9d6f7b5-r2t6w": "Rollout/ml-serving/chat",
        "bert-master-0": "PyTorchJob/ml-training/bert/Master",
        "bert-worker-0": "PyTorchJob/ml-training/bert/Worker",
        "bert-worker-1": "PyTorchJob/ml-training/bert/Worker",
        "hvd-worker-0": "MPIJob/ml-training/hvd/Worker",
        "hvd-worker-1": "MPIJob/ml-training/hvd/Worker",
        "dsr1-0": "LeaderWorkerSet/ml-serving/dsr1/leaderTemplate",
        "dsr1-0-1": "LeaderWorkerSet/ml-serving/dsr1/workerTemplate"}
    # The Ray head and the MPI launcher ask for no GPU: they belong to no GPU template.


def test_a_failing_template_leaves_its_siblings_ready(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    code, report = _report(capsys, SNAPSHOTS / "multi-mixed.yaml")
    verdicts = {w["workload"]: w["verdict"] for w in report["workloads"]}
    assert code == 1 and report["verdict"] == "stop"
    assert verdicts == {
        "RayCluster/ray/llm/workerGroupSpecs-0": "ready",
        "RayCluster/ray/llm/workerGroupSpecs-1": "stop",
        "RayJob/ray/batch-infer/workerGroupSpecs-0": "ready",
        "Rollout/ml-serving/chat": "wait",
        "PyTorchJob/ml-training/bert/Master": "ready",
        "PyTorchJob/ml-training/bert/Worker": "stop",
        "MPIJob/ml-training/hvd/Worker": "ready",
        "LeaderWorkerSet/ml-serving/dsr1/leaderTemplate": "ready",
        "LeaderWorkerSet/ml-serving/dsr1/workerTemplate": "stop"}
    chat = next(w for w in report["workloads"] if w["workload"] == "Rollout/ml-serving/chat")
    assert [(r["revision"], r["replicas"], r["role"]) for r in chat["replicaSets"]] == [
        (1, 1, "stable"), (2, 1, "canary")]
    assert {p["name"]: p["tensorFusion"] for p in chat["pods"]} == {
        "chat-6f8d7c5b9a-h3c5v": False, "chat-84c9d6f7b5-m4x8z": True}


def test_an_aborted_rollout_is_a_stop(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _report(capsys, SNAPSHOTS / "multi-aborted.yaml")
    chat = next(w for w in report["workloads"] if w["workload"] == "Rollout/ml-serving/chat")
    assert code == 1 and chat["verdict"] == "stop"
    assert any("aborted" in p["message"] for p in chat["problems"])


def test_without_the_rollout_object_the_newest_revision_is_the_new_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    builder = _builder()
    items = [i for i in builder.mixed() if i["kind"] != "Rollout"]
    (tmp_path / "snap.yaml").write_text(builder.base.as_list(items), encoding="utf-8")
    _, report = _report(capsys, tmp_path / "snap.yaml")
    chat = next(w for w in report["workloads"] if w["workload"] == "Rollout/ml-serving/chat")
    assert [r["role"] for r in chat["replicaSets"]] == ["old", "new"]
    assert any(p["message"] == "old revision 1 still runs 1 pods" for p in chat["problems"])


def test_a_pod_without_a_role_label_is_not_guessed(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Two worker groups and no ray.io/group: the pod belongs to neither."""
    builder = _builder()
    items = builder.clean()
    for item in items:
        if item["metadata"]["name"] == "llm-small-group-worker-0k7p":
            del item["metadata"]["labels"]["ray.io/group"]
            item["metadata"]["labels"]["ray.io/node-type"] = "worker"
    (tmp_path / "snap.yaml").write_text(builder.base.as_list(items), encoding="utf-8")
    _, report = _report(capsys, tmp_path / "snap.yaml")
    assert "llm-small-group-worker-0k7p" not in _pods(report)
    small = next(w for w in report["workloads"]
                 if w["workload"] == "RayCluster/ray/llm/workerGroupSpecs-1")
    assert small["verdict"] == "wait" and small["tensorFusionPods"]["seen"] == 0


def _kubectl(folder: Path, rollouts_missing: bool) -> Path:
    """A stand-in `kubectl` that records its argv and prints the part it is asked for."""
    builder = _builder()
    items = builder.mixed()
    parts = {"operator": [i for i in items if i["kind"] in ("GPU", "GPUNode", "GPUPool")],
             "rollouts": [i for i in items if i["kind"] == "Rollout"]}
    parts["workloads"] = [i for i in items if i["kind"] not in ("GPU", "GPUNode", "GPUPool",
                                                                "Rollout")]
    for name, part in parts.items():
        (folder / f"{name}.yaml").write_text(builder.base.as_list(part), encoding="utf-8")
    missing = "echo 'error: the server doesn'\"'\"'t have a resource type \"rollouts\"' >&2; exit 1"
    script = folder / "kubectl"
    script.write_text(f"""#!/bin/sh
echo "$@" >> {folder}/argv.log
case "$*" in
  *gpus.tensor-fusion.ai*) cat {folder}/operator.yaml;;
  *rollouts.argoproj.io*) {missing if rollouts_missing else f'cat {folder}/rollouts.yaml'};;
  *.argoproj.io*|*.fluxcd.io*) printf 'apiVersion: v1\\nitems: []\\nkind: List\\n';;
  *) cat {folder}/workloads.yaml;;
esac
""", encoding="utf-8")
    script.chmod(0o755)
    return folder / "argv.log"


@pytest.mark.parametrize("missing", [False, True])
def test_live_asks_for_the_rollouts_when_the_manifests_hold_one(tmp_path: Path, missing: bool
                                                                ) -> None:
    log = _kubectl(tmp_path, missing)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover",
                           "--format", "json", str(HERE / "multi.yaml"), "--live"],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert done.returncode == 1, done.stderr
    assert log.read_text(encoding="utf-8").splitlines()[2] == "get rollouts.argoproj.io -A -o yaml"
    chat = next(w for w in json.loads(done.stdout)["workloads"]
                if w["workload"] == "Rollout/ml-serving/chat")
    roles = ["old", "new"] if missing else ["stable", "canary"]
    assert [r["role"] for r in chat["replicaSets"]] == roles


def test_a_rayjobs_rejected_worker_is_found_on_its_cluster(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """KubeRay records the failed pod creation on the RayCluster the RayJob made."""
    builder = _builder()
    cluster = "batch-infer-x7k2p"
    items = [i for i in builder.clean() if not i["metadata"]["name"].startswith(cluster)]
    message = (f"Failed to create worker Pod for the cluster ray/{cluster}, admission webhook "
               '"mpod.tensor-fusion.ai" denied the request: gpu pool not found')
    rejected = builder.base.event("RayCluster", "ray", cluster, "FailedToCreateWorkerPod",
                                  message, "raycluster-controller")
    head = builder.base.event("RayCluster", "ray", cluster, "FailedToCreateHeadPod",
                              message.replace("worker", "head"), "raycluster-controller")
    head["metadata"]["name"] = f"{cluster}.1870a2b3c4d5e6f8"  # events are named apart
    (tmp_path / "snap.yaml").write_text(builder.base.as_list([*items, rejected, head]),
                                        encoding="utf-8")
    _, report = _report(capsys, tmp_path / "snap.yaml")
    job = next(w for w in report["workloads"]
               if w["workload"] == "RayJob/ray/batch-infer/workerGroupSpecs-0")
    assert job["verdict"] == "stop"
    assert [(p["subject"], p["message"][:46]) for p in job["problems"] if p["verdict"] == "stop"
            ] == [(f"RayCluster/{cluster}", "pod creation rejected: Failed to create worker")]
