"""``tfpolicy plan`` end to end: the examples fit, a rollout surge that does not, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

TWO_GPUS = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
metadata: {name: tiny}
spec:
  defaultPool: pool
  pools:
    - name: pool
      nodeGroups: [{name: n, count: 1, gpusPerNode: 2, model: A100_SXM_80G}]
"""


def deployment(strategy: str, replicas: int = 2) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: ml}}
spec:
  replicas: {replicas}
  strategy: {strategy}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
        - name: main
          image: x
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def plan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["plan", *args])
    return code, capsys.readouterr().out


def test_examples_fit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = plan(capsys, "-p", "takeover", "--inventory", str(EXAMPLES / "inventory.yaml"),
                     str(EXAMPLES / "manifests"))
    assert code == 0, out
    assert "every step fits" in out
    assert "step 04 takeover-100: fits" in out
    assert "GPUs in use: 29 → 29" in out


def test_examples_with_kubectl_inventory(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = plan(capsys, "-p", "takeover", "--inventory",
                     str(EXAMPLES / "inventory-kubectl.yaml"), "--format", "json",
                     str(EXAMPLES / "manifests"))
    report = json.loads(out)
    assert code in (0, 1)
    assert report["fits"] is (code == 0)
    assert report["summary"]["gpusTotal"] > 0


def test_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = plan(capsys, "-p", "rightsize-example", "--inventory",
                     str(EXAMPLES / "inventory.yaml"), "--format", "json",
                     str(EXAMPLES / "manifests"))
    report = json.loads(out)
    assert code == 0
    assert [s["name"] for s in report["steps"]] == [
        "takeover-1", "takeover-25", "takeover-50", "takeover-100",
        "rightsize-1", "rightsize-25", "rightsize-50", "rightsize-100"]
    step = report["steps"][-1]
    assert {"name", "fits", "unschedulable", "gpus", "pools", "oversubscribedGpus",
            "pods", "status", "rolled", "warnings"} <= set(step)
    assert set(step["gpus"]) == {"total", "devicePlugin", "tensorFusion", "idle"}
    assert {"gpusBefore", "gpusAfter", "gpusFreed", "nodesFreed", "costPerHourBefore",
            "costPerHourAfter"} <= set(report["summary"])
    summary = report["summary"]
    assert summary["gpusFreed"] == summary["gpusBefore"] - summary["gpusAfter"] > 0
    # A capped rightsize template keeps its native GPUs, so the replicas over the cap are
    # admitted unmutated and go back to the device plugin (the count restarts per
    # ReplicaSet revision) instead of running with no GPU.
    rung1 = report["steps"][4]
    assert rung1["pods"]["noGpu"] == 0
    assert rung1["pods"]["devicePlugin"] > report["steps"][3]["pods"]["devicePlugin"]


def test_surge_alone_does_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two pods on the last two GPUs: RollingUpdate surges one new pod first; Recreate does not."""
    inventory = write(tmp_path, "inv.yaml", TWO_GPUS)
    rolling = write(tmp_path, "rolling.yaml", deployment(
        "{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}"))
    recreate = write(tmp_path, "recreate.yaml", deployment("{type: Recreate}"))
    code, out = plan(capsys, "-p", "takeover", "--inventory", inventory, "--steps", "100%",
                     rolling)
    assert code == 1
    assert "step 01 takeover-100: does-not-fit" in out
    assert "does not fit: pod deployment-web-s1-0 of Deployment/ml/web: 0/1 nodes are " \
           "available: 1 GPU used by the device plugin." in out
    assert "2 old pods still running, 0 new pods placed" in out
    code, out = plan(capsys, "-p", "takeover", "--inventory", inventory, "--steps", "100%",
                     recreate)
    assert code == 0, out


def test_start_that_does_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = write(tmp_path, "inv.yaml", TWO_GPUS)
    manifest = write(tmp_path, "m.yaml", deployment("{type: Recreate}", replicas=3))
    code, out = plan(capsys, "-p", "takeover", "--inventory", inventory, "--format", "json",
                     manifest)
    report = json.loads(out)
    assert code == 1
    assert report["start"]["fits"] is False
    misfit = report["start"]["unschedulable"][0]
    assert misfit["reasons"] == [{"reason": "insufficient free whole GPUs", "nodes": 1}]
    assert {s["status"] for s in report["steps"]} == {"not-run"}


def test_emit_policies_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "steps"
    code, _ = plan(capsys, "-p", "rightsize-example", "--inventory",
                   str(EXAMPLES / "inventory.yaml"), "--emit-policies", str(out_dir),
                   str(EXAMPLES / "manifests"))
    assert code == 0
    files = sorted(p.name for p in out_dir.iterdir())
    assert files[0] == "01-takeover-1.yaml" and files[-1] == "08-rightsize-100.yaml"
    assert len(files) == 8
    assert main(["validate", *(str(out_dir / f) for f in files)]) == 0
    first = (out_dir / "01-takeover-1.yaml").read_text()
    assert "stage: takeover" in first and "enabledReplicas: 1" in first
    assert "resources" not in first
    last = (out_dir / "08-rightsize-100.yaml").read_text()
    assert "stage: rightsize" in last and "enabledReplicas" not in last


@pytest.mark.parametrize("args", [
    ["--steps", "1,x"],
    ["--steps", "25%,25"],
    ["--inventory", "missing.yaml"],
])
def test_bad_input_exits_2(tmp_path: Path, args: list[str],
                           capsys: pytest.CaptureFixture[str]) -> None:
    base = ["-p", "takeover", "--inventory", str(EXAMPLES / "inventory.yaml"),
            "--emit-policies", str(tmp_path / "out")]
    code = main(["plan", *base, *args, str(EXAMPLES / "manifests")])
    assert code == 2
    assert capsys.readouterr().out == ""
    assert not (tmp_path / "out").exists()


def test_bad_compact_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = write(tmp_path, "inv.yaml", TWO_GPUS.replace("count: 1", "count: many"))
    code = main(["plan", "-p", "takeover", "--inventory", inventory,
                 str(EXAMPLES / "manifests")])
    assert code == 2
    assert "inv.yaml" in capsys.readouterr().err


def test_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "takeover", "--inventory",
         str(EXAMPLES / "inventory.yaml"), "--format", "json", str(EXAMPLES / "manifests")],
        capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fits"] is True
