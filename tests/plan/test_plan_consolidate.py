"""``tfpolicy plan`` end to end: consolidation after the last step, PDBs, --rollout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tfpolicy.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_plan

INVENTORY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
metadata: {name: four}
spec:
  defaultPool: pool
  pools:
    - name: pool
      nodeGroups: [{name: n, count: 4, gpusPerNode: 2, model: A100_SXM_80G}]
"""


def deployment(name: str, replicas: int, labels: str = "") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: ml}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata:
      labels: {{app: {name}{labels}}}
      annotations:
        tensor-fusion.ai/tflops-request: "40"
        tensor-fusion.ai/vram-request: 8Gi
    spec:
      containers:
        - name: main
          image: x
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


RIGHTSIZE = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: small}
spec:
  stage: rightsize
  resources: {tflops: {request: "40", limit: "80"}, vram: {request: 8Gi, limit: 16Gi}}
"""


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], manifests: str,
        *extra: str) -> tuple[int, dict[str, object]]:
    (tmp_path / "inv.yaml").write_text(INVENTORY)
    (tmp_path / "m.yaml").write_text(manifests)
    (tmp_path / "p.yaml").write_text(RIGHTSIZE)
    code = main(["plan", "-p", str(tmp_path / "p.yaml"), "--inventory",
                 str(tmp_path / "inv.yaml"), "--format", "json", *extra,
                 str(tmp_path / "m.yaml")])
    return code, json.loads(capsys.readouterr().out)


def _fleet(tmp_path: Path, extra: str = "") -> list[str]:
    """bench_plan's generator at 40 nodes: real spread after rightsize, in about a second."""
    (tmp_path / "inv.yaml").write_text(bench_plan.inventory_text(40))
    (tmp_path / "m.yaml").write_text(bench_plan.manifests_text(60) + extra)
    (tmp_path / "p.yaml").write_text(bench_plan.POLICIES)
    return ["plan", "-p", str(tmp_path / "p.yaml"), "--inventory", str(tmp_path / "inv.yaml"),
            "--format", "json", str(tmp_path / "m.yaml")]


def test_rightsized_fleet_leaves_nodes_to_remove(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_fleet(tmp_path)) == 0
    plan = json.loads(capsys.readouterr().out)
    drained = plan["consolidation"]
    assert drained["nodesBefore"] == plan["summary"]["nodesAfter"]
    assert drained["nodesRemovable"] == drained["nodesBefore"] - drained["nodesAfter"] > 0
    assert drained["nodesAfter"] >= drained["lowerBound"] > 0
    assert drained["gpusFreed"] == 8 * drained["nodesRemovable"]
    assert len(drained["removable"]) == drained["nodesRemovable"]
    assert drained["evictions"] >= drained["nodesRemovable"] and drained["costPerHourFreed"] > 0


def test_pdbs_with_no_room_keep_every_node(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pdbs = "".join(f"""---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: all, namespace: {ns}-{i}}}
spec: {{maxUnavailable: 0, selector: {{}}}}
""" for ns in ("train", "infer") for i in range(7))
    assert main(_fleet(tmp_path, "\n" + pdbs)) == 0
    drained = json.loads(capsys.readouterr().out)["consolidation"]
    assert drained["nodesRemovable"] == 0 and drained["blockedByBudget"] > 0


def test_no_consolidate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, plan = run(tmp_path, capsys, deployment("web", 6), "--no-consolidate")
    assert code == 0 and plan["consolidation"] is None


def test_text_shows_the_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inv.yaml").write_text(INVENTORY)
    (tmp_path / "m.yaml").write_text(deployment("web", 6))
    (tmp_path / "p.yaml").write_text(RIGHTSIZE)
    assert main(["plan", "-p", str(tmp_path / "p.yaml"), "--inventory",
                 str(tmp_path / "inv.yaml"), str(tmp_path / "m.yaml")]) == 0
    out = capsys.readouterr().out
    assert "consolidation (drain the nodes that can be emptied, PDB-aware):" in out
    assert "lower bound 1)" in out


def test_node_price_is_what_a_removed_node_frees(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    args = _fleet(tmp_path)
    assert main(args) == 0
    by_gpu = json.loads(capsys.readouterr().out)["consolidation"]
    inventory = (tmp_path / "inv.yaml").read_text()
    (tmp_path / "inv.yaml").write_text(inventory.replace(
        "      gpusPerNode: 8\n", "      gpusPerNode: 8\n      nodeCostPerHour: '5'\n"))
    assert "nodeCostPerHour" in (tmp_path / "inv.yaml").read_text()
    assert main(args) == 0
    by_node = json.loads(capsys.readouterr().out)["consolidation"]
    assert by_node["nodesRemovable"] == by_gpu["nodesRemovable"]
    assert by_node["costPerHourFreed"] == 5 * by_node["nodesRemovable"]
