"""Numbers that used to crash or hang `plan --inventory` (issue 8 §2).

Each case runs the real CLI in a subprocess with a memory cap and a timeout:
the answer must be one located line on stderr, exit 2, nothing on stdout.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
MANIFESTS = str(ROOT / "examples" / "manifests")
MEMORY_CAP = 1536 * 2**20  # "never GBs of memory"

COMPACT = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
spec:
  defaultPool: p
  pools:
    - name: p
      nodeGroups:
        - name: a
          model: A100_SXM_80G
          {field}
"""

KUBECTL = """\
apiVersion: v1
kind: List
items:
  - apiVersion: tensor-fusion.ai/v1
    kind: GPUPool
    metadata: {{name: p, annotations: {{tensor-fusion.ai/is-default-pool: "true"}}}}
  - apiVersion: tensor-fusion.ai/v1
    kind: GPUNode
    metadata: {{name: n1}}
    spec: {{costPerHour: {cost}}}
    status: {{totalGPUs: 1, nodeInfo: {{ramSize: {ram}}}}}
  - apiVersion: tensor-fusion.ai/v1
    kind: GPU
    metadata: {{name: g1, labels: {{tensor-fusion.ai/gpupool: p}}}}
    status:
      phase: Running
      gpuModel: NVIDIA A100-SXM4-80GB
      nodeSelector: {{kubernetes.io/hostname: n1}}
      capacity: {{tflops: {tflops}, vram: {vram}}}
      available: {{tflops: {avail}, vram: 80Gi}}
"""
GOOD = {"cost": '"2"', "ram": "1Ti", "tflops": '"312"', "vram": "80Gi", "avail": '"312"'}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def plan(inventory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TFPOLICY, "plan", "-p", "takeover", "--inventory", str(inventory), MANIFESTS],
        capture_output=True, text=True, timeout=60, check=False, preexec_fn=_limit_memory)


def assert_refused(result: subprocess.CompletedProcess[str], file: Path, where: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{file}:") and where in lines[0], lines[0]


@pytest.mark.parametrize(("field", "where"), [
    ("count: 1000000", "nodeGroups[0].count"),
    ("count: 10001", "nodeGroups[0].count"),
    ("tflops: .inf", "nodeGroups[0].tflops"),
    ("tflops: .nan", "nodeGroups[0].tflops"),
    ("tflops: -.inf", "nodeGroups[0].tflops"),
    ("tflops: 1e999999999", "nodeGroups[0].tflops"),
    ("tflops: '1e999999999'", "nodeGroups[0].tflops"),
    ("tflops: 99999999999999999999999999999", "nodeGroups[0].tflops"),
    ("tflops: 100001", "nodeGroups[0].tflops"),
    ("vram: .inf", "nodeGroups[0].vram"),
    ("vram: 1e999999999Gi", "nodeGroups[0].vram"),
    ("vram: 17Ti", "nodeGroups[0].vram"),
    ("vram: 1.0e+300", "nodeGroups[0].vram"),
    ("costPerHour: .nan", "nodeGroups[0].costPerHour"),
    ("costPerHour: 1e999999", "nodeGroups[0].costPerHour"),
    ("ramSize: 9e99999", "nodeGroups[0].ramSize"),
    ("dataDiskSize: 2Pi", "nodeGroups[0].dataDiskSize"),
    ("gpusPerNode: 1000000", "nodeGroups[0].gpusPerNode"),
], ids=lambda v: str(v))
def test_compact_inventory_numbers_are_refused(tmp_path: Path, field: str, where: str) -> None:
    file = tmp_path / "inventory.yaml"
    file.write_text(COMPACT.format(field=field))
    assert_refused(plan(file), file, where)


def test_compact_inventory_total_size_is_bounded(tmp_path: Path) -> None:
    # each group is within its own maximum; together they pass 10,000 nodes
    file = tmp_path / "inventory.yaml"
    file.write_text(COMPACT.format(field="count: 10000\n        - {name: b, model: T4, count: 1}"))
    assert_refused(plan(file), file, "limited to 10000 nodes and 100000 GPUs")


def test_compact_inventory_at_the_limits_still_plans(tmp_path: Path) -> None:
    file = tmp_path / "inventory.yaml"
    file.write_text(COMPACT.format(field="count: 2\n          tflops: 100000\n          vram: 16Ti"))
    result = plan(file)
    assert result.returncode in (0, 1), result.stderr
    assert "nodes in use" in result.stdout


@pytest.mark.parametrize(("field", "value", "where"), [
    ("tflops", ".inf", "GPU g1 status.capacity.tflops"),
    ("tflops", ".nan", "GPU g1 status.capacity.tflops"),
    ("tflops", '"1e999999999"', "GPU g1 status.capacity.tflops"),
    ("tflops", "1e999999999", "GPU g1 status.capacity.tflops"),
    ("vram", '"1e999999999Gi"', "GPU g1 status.capacity.vram"),
    ("vram", "99999Ti", "GPU g1 status.capacity.vram"),
    ("avail", '"1e99999"', "GPU g1 status.available.tflops"),
    ("avail", '"400"', "GPU g1 status.available.tflops"),
    ("cost", ".nan", "GPUNode n1 spec.costPerHour"),
    ("cost", '"1e999999999"', "GPUNode n1 spec.costPerHour"),
    ("ram", "9e99999", "GPUNode n1 status.nodeInfo.ramSize"),
], ids=lambda v: str(v))
def test_kubectl_inventory_numbers_are_refused(tmp_path: Path, field: str, value: str,
                                               where: str) -> None:
    file = tmp_path / "gpus.yaml"
    file.write_text(KUBECTL.format(**{**GOOD, field: value}))
    assert_refused(plan(file), file, where)


def test_kubectl_inventory_baseline_plans(tmp_path: Path) -> None:
    file = tmp_path / "gpus.yaml"
    file.write_text(KUBECTL.format(**GOOD))
    result = plan(file)
    assert result.returncode in (0, 1), result.stderr
    assert "nodes in use" in result.stdout
