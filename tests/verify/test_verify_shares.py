"""At a rightsize step, verify checks what the step promises (docs/verify.md, "Shares" and
"Savings"): each TensorFusion pod's share equals the policy's, per workload where the
policy gives per-workload values; a pod at another share waits while its workload rolls
and stops once it is done; a GPU taken whole under shares is a problem; an OOM-killed
pod names its vram-limit; and the GPUs and nodes freed are measured against the figures
``tfpolicy plan -o json`` gives for the same step. The snapshots are
``build_rightsize.py``'s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main

HERE = ROOT / "tests" / "verify"
INVENTORY = str(HERE / "rightsize-inventory.yaml")
MANIFESTS = str(HERE / "manifests.yaml")
STEP = 8  # rightsize-100 of rightsize-example: steps 05-08 are its rungs
PER_WORKLOAD = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata:
  name: rightsize-recommended
spec:
  stage: rightsize
  isolation: soft
  resources:
    tflops: {request: "30", limit: "60"}
    vram: {request: 8Gi, limit: 16Gi}
  workloads:
    - match: {kinds: [StatefulSet], names: [trainer]}
      resources:
        tflops: {request: "90", limit: "120"}
        vram: {request: 20Gi, limit: 40Gi}
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert err == "", err
    return code, out


def verify(capsys: pytest.CaptureFixture[str], snapshot: str | Path, *extra: str,
           policy: str = "rightsize-example") -> tuple[int, str]:
    shot = snapshot if isinstance(snapshot, Path) else HERE / "snapshots" / f"{snapshot}.yaml"
    return run(capsys, "verify", "-p", policy, "--inventory", INVENTORY, "--step", str(STEP),
               *extra, MANIFESTS, "--cluster", str(shot))


def verify_json(capsys: pytest.CaptureFixture[str], snapshot: str | Path,
                policy: str = "rightsize-example") -> tuple[int, dict[str, Any]]:
    code, out = verify(capsys, snapshot, "--format", "json", policy=policy)
    return code, json.loads(out)


def problems(report: dict[str, Any], workload: str) -> list[dict[str, str]]:
    return next(w["problems"] for w in report["workloads"] if w["workload"] == workload)


def test_every_pod_at_the_policys_share_is_ready(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_json(capsys, "rightsize-ready")
    assert code == 0 and report["verdict"] == "ready", report
    assert report["step"] == "08 rightsize-100"
    assert all(w["problems"] == [] for w in report["workloads"])


def test_a_pod_of_the_takeovers_revision_waits(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_json(capsys, "rightsize-old-share")
    assert code == 75 and report["verdict"] == "wait"
    said = [p for p in problems(report, "Deployment/ml-serving/vllm") if "share" in p["message"]
            or "whole card" in p["message"]]
    assert [p["verdict"] for p in said] == ["wait"]
    assert "vllm-6d5f7c9b8-h5n2c" in said[0]["message"]
    assert "a whole card (isolation shared)" in said[0]["message"]
    assert "30/60 TFLOPS, 8Gi/16Gi VRAM" in said[0]["message"]


def test_a_pod_of_the_new_revision_at_another_share_stops(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_json(capsys, "rightsize-other-share")
    assert code == 1 and report["verdict"] == "stop"
    [said] = problems(report, "Deployment/ml-serving/vllm")
    assert said["verdict"] == "stop" and "vllm-7b9c4d5f6-q7w4z" in said["message"]
    assert "20/40 TFLOPS" in said["message"] and "the rollout is done" in said["message"]
    assert report["rollback"].startswith("the policy of step 07 (rightsize-50)")


def test_a_gpu_taken_whole_under_shares_is_a_problem(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_json(capsys, "rightsize-whole-card")
    assert code == 1
    off = [g for g in report["gpus"] if g["verdict"] != "ready"]
    assert [g["name"] for g in off] == ["gpu-3f5a1c2e-8d4b-4e6f-9a1b-2c3d4e5f6a70"]
    assert off[0]["available"] == {"tflops": 0.0, "vramMiB": 0}
    assert off[0]["expected"] == {"tflops": 222.0, "vramMiB": 81920 - 3 * 8192}
    assert "taken whole, not reduced by its 3 pods' requests" in off[0]["message"]


def test_an_oom_killed_pod_names_its_vram_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(capsys, "rightsize-oom")
    assert code == 1
    assert "stop: a gate failed, roll back" in out.splitlines()[0]
    line = next(x for x in out.splitlines() if "vllm-7b9c4d5f6-k2x9p: 2 restarts" in x)
    assert "last OOMKilled, under vram-limit 16Gi (the policy's); raise the limit or lower " \
           "the framework's pre-allocation (vLLM --gpu-memory-utilization" in line


def test_a_limit_other_than_the_policys_says_both(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = (HERE / "snapshots" / "rightsize-oom.yaml").read_text(encoding="utf-8")
    first = text.index("tensor-fusion.ai/vram-limit: 16Gi")
    shot = tmp_path / "own-limit.yaml"
    shot.write_text(text[:first] + "tensor-fusion.ai/vram-limit: 12Gi"
                    + text[first + len("tensor-fusion.ai/vram-limit: 16Gi"):], encoding="utf-8")
    _, out = verify(capsys, shot)
    assert "under vram-limit 12Gi (the policy gives 16Gi)" in out


def plan_step(capsys: pytest.CaptureFixture[str], policy: str = "rightsize-example"
              ) -> tuple[int, int, int]:
    """The plan's own figures for the step: idle GPUs, GPU nodes not in use, and the GPUs
    its TensorFusion pods take."""
    code, out = run(capsys, "plan", "-p", policy, "--inventory", INVENTORY, "--format", "json",
                    MANIFESTS)
    assert code == 0, out
    plan = json.loads(out)
    step = plan["steps"][STEP - 1]
    assert step["name"] == "rightsize-100"
    return (step["gpus"]["idle"], plan["summary"]["nodesTotal"] - step["nodesInUse"],
            step["gpus"]["tensorFusion"])


def test_savings_are_measured_against_the_plans_figures(
        capsys: pytest.CaptureFixture[str]) -> None:
    gpus, nodes, _ = plan_step(capsys)
    _, report = verify_json(capsys, "rightsize-ready")
    assert report["savings"] == {"gpusFree": 3, "nodesFree": 1, "plannedGpusFree": gpus,
                                 "plannedNodesFree": nodes, "warning": None}
    assert (gpus, nodes) == (3, 1)


def test_far_below_the_plan_is_a_warning_not_a_verdict(
        capsys: pytest.CaptureFixture[str]) -> None:
    gpus, nodes, packed = plan_step(capsys)
    code, report = verify_json(capsys, "rightsize-spread")
    assert code == 0 and report["verdict"] == "ready"
    savings = report["savings"]
    assert (savings["gpusFree"], savings["nodesFree"]) == (1, 0)
    assert (savings["plannedGpusFree"], savings["plannedNodesFree"]) == (gpus, nodes)
    assert f"hold 3 GPUs where the plan packs them on {packed}" in savings["warning"]
    _, text = verify(capsys, "rightsize-spread")
    assert "  warning: fewer freed than the plan promises" in text


def test_mid_rollout_the_warning_says_to_verify_again(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, report = verify_json(capsys, "rightsize-old-share")
    assert report["savings"]["gpusFree"] == 2
    assert report["savings"]["warning"].startswith("measured while the rollout is in progress")


def test_no_savings_outside_rightsize(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "verify", "-p", "takeover", "--format", "json", MANIFESTS,
                    "--cluster", str(HERE / "snapshots" / "clean.yaml"))
    assert code == 0 and json.loads(out)["savings"] is None


def test_per_workload_values_are_each_workloads_share(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "rightsize.yaml"
    policy.write_text(PER_WORKLOAD, encoding="utf-8")
    code, report = verify_json(capsys, "rightsize-ready", policy=str(policy))
    # the trainer runs at the default share, the policy gives it its own: a StatefulSet
    # replaces its pod in place, so with none at the step's share yet it still rolls
    assert code == 75
    [said] = problems(report, "StatefulSet/ml-training/trainer")
    assert said["verdict"] == "wait" and "90/120 TFLOPS, 20Gi/40Gi VRAM" in said["message"]
    assert "trainer-0) run at 30/60 TFLOPS, 8Gi/16Gi VRAM" in said["message"]
    assert problems(report, "Deployment/ml-serving/vllm") == []
    text = (HERE / "snapshots" / "rightsize-ready.yaml").read_text(encoding="utf-8")
    own = tmp_path / "own-share.yaml"
    own.write_text(_trainer_at(text, "90", "120", "20Gi", "40Gi"), encoding="utf-8")
    code, report = verify_json(capsys, own, policy=str(policy))
    assert problems(report, "StatefulSet/ml-training/trainer") == []


def _trainer_at(text: str, *values: str) -> str:
    """The snapshot with trainer-0's share annotations set to ``values`` (its GPU's status
    left as is: the GPU check is not what this asserts)."""
    head, rest = text.split("name: trainer-0\n", 1)
    for key, value in zip(("tflops-request", "tflops-limit", "vram-request", "vram-limit"),
                          values, strict=True):
        at = rest.index(f"tensor-fusion.ai/{key}: ")
        end = rest.index("\n", at)
        rest = f"{rest[:at]}tensor-fusion.ai/{key}: '{value}'{rest[end:]}"
    return head + "name: trainer-0\n" + rest


def test_the_page_shows_the_savings_without_script(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, page = verify(capsys, "rightsize-spread", "--format", "html")
    _, again = verify(capsys, "rightsize-spread", "--format", "html")
    assert page == again and "<script" not in page
    assert '<section id="savings" data-warning="yes">' in page
    assert '<td id="savings-gpusFree">1</td><td id="savings-plannedGpusFree">3</td>' in page


def test_rolling_back_to_whole_cards_waits_for_the_pods_at_a_share(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The takeover step (04) after a rightsize: a pod of the rightsize's revision still at
    its share is a wait, and its GPU is counted at that share, not at a whole card."""
    code, out = run(capsys, "verify", "-p", "rightsize-example", "--inventory", INVENTORY,
                    "--step", "4", "--format", "json", MANIFESTS, "--cluster",
                    str(HERE / "snapshots" / "rightsize-rolling-back.yaml"))
    report = json.loads(out)
    assert code == 75 and report["savings"] is None
    said = problems(report, "Deployment/ml-serving/vllm")
    assert said[0]["verdict"] == "wait" and "vllm-6d5f7c9b8-h5n2c) run at 30/60" in \
        said[0]["message"] and "the step gives each a whole card" in said[0]["message"]
    assert all(g["verdict"] == "ready" for g in report["gpus"])


def test_the_promise_counts_the_pools_the_snapshot_shows(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled examples keep two T4 nodes for the device plugin alone
    (``devicePluginOnly``), which hold no GPU object: the plan's figures for the step are
    taken over the TensorFusion pool the snapshot shows, from the same JSON."""
    examples = ROOT / "examples"
    code, out = run(capsys, "plan", "-p", "rightsize-example", "--inventory",
                    str(examples / "inventory.yaml"), "--format", "json",
                    str(examples / "manifests"))
    assert code == 0, out
    plan = json.loads(out)
    step = plan["steps"][STEP - 1]
    legacy = [w for w in step["workloads"] if all(n.startswith("t4-legacy-") for n in w["nodes"])]
    outside_gpus = step["gpus"]["total"] - sum(p["gpus"] for p in step["pools"])
    outside_idle = outside_gpus - sum(w["wholeGpus"] for w in legacy)
    outside_busy = len({n for w in legacy for n in w["nodes"]})
    _, out = run(capsys, "verify", "-p", "rightsize-example", "--inventory",
                 str(examples / "inventory.yaml"), "--step", str(STEP), "--format", "json",
                 str(examples / "manifests"), "--cluster",
                 str(examples / "cluster" / "after-takeover.yaml"))
    savings = json.loads(out)["savings"]
    assert savings["plannedGpusFree"] == step["gpus"]["idle"] - outside_idle
    assert savings["plannedNodesFree"] == (plan["summary"]["nodesTotal"] - 2) - (
        step["nodesInUse"] - outside_busy)  # the inventory's two t4-legacy nodes
    assert "different fleets" not in (savings["warning"] or "")


@pytest.mark.parametrize("asked", [4, 5])
def test_the_shares_tell_which_step_the_cluster_shows(
        asked: int, capsys: pytest.CaptureFixture[str]) -> None:
    """takeover-100 and rightsize-100 run as many TensorFusion pods: only their shares tell
    the two apart, so a snapshot at rightsize-100 is not taken for takeover-100."""
    _, out = run(capsys, "verify", "-p", "rightsize-example", "--inventory", INVENTORY,
                 "--step", str(asked), MANIFESTS, "--cluster",
                 str(HERE / "snapshots" / "rightsize-ready.yaml"))
    assert out.splitlines()[0].startswith("the cluster shows step 08 rightsize-100 (0 pods")
    assert out.splitlines()[0].endswith("did you mean --step 8?")
