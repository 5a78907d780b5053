"""The inventory's `spec.scheduler` reaches `tfpolicy plan` (issue 7 §2, scheduler side)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))

INVENTORY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
spec:
  {scheduler}
  defaultPool: p
  pools:
    - name: p
      nodeGroups:
        - {{name: a100, count: 1, gpusPerNode: 1, model: A100_SXM_80G}}
  devicePluginOnly:
    - {{name: t4, count: 1, gpusPerNode: 2, model: T4}}
"""

APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: c
          image: x
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def plan(tmp_path: Path, scheduler: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "inventory.yaml").write_text(INVENTORY.format(scheduler=scheduler))
    (tmp_path / "app.yaml").write_text(APP)
    return subprocess.run([TFPOLICY, "plan", "-p", "takeover", "--inventory", "inventory.yaml",
                           "app.yaml"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, check=False)


def start_section(stdout: str) -> str:
    return stdout.split("\n\n")[1]


def test_without_progressive_migration_native_pods_use_every_gpu_node(tmp_path: Path) -> None:
    result = plan(tmp_path, "scheduler: {progressiveMigration: false}")
    start = start_section(result.stdout)
    assert start.startswith("start (the manifests as they are): fits"), result.stdout
    assert "nodes in use 2" in start


def test_progressive_migration_keeps_native_pods_to_tensor_fusion_nodes(tmp_path: Path) -> None:
    # gpuresources.go:164-173: PreFilter narrows native pods to ListNonUsingNodes, which
    # lists only nodes with GPU objects; the T4 node outside TensorFusion has none
    result = plan(tmp_path, "scheduler: {progressiveMigration: true}")
    assert result.returncode == 1, result.stderr
    start = start_section(result.stdout)
    assert start.startswith("start (the manifests as they are): does-not-fit"), result.stdout
    assert "1 node has no GPU objects (progressive migration)" in start


@pytest.mark.parametrize(("scheduler", "where"), [
    ("scheduler: {isolationModePolicy: strict}", "$.spec.scheduler.isolationModePolicy"),
    ("scheduler: {vramWeight: 0.0001}", "$.spec.scheduler.vramWeight"),
    ("scheduler: {tflopsWeight: .nan}", "$.spec.scheduler.tflopsWeight"),
    ("scheduler: {tflopsWeight: .inf}", "$.spec.scheduler.tflopsWeight"),
    ("scheduler: {progressiveMigration: 'yes'}", "$.spec.scheduler.progressiveMigration"),
    ("scheduler: {preemption: true}", "$.spec.scheduler.preemption"),
])
def test_bad_scheduler_settings_are_located_errors(tmp_path: Path, scheduler: str,
                                                    where: str) -> None:
    result = plan(tmp_path, scheduler)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("inventory.yaml:"), lines
    assert where in lines[0], lines[0]


def plan_with_values(tmp_path: Path, values: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "inventory.yaml").write_text(INVENTORY.format(scheduler=""))
    (tmp_path / "app.yaml").write_text(APP)
    (tmp_path / "values.yaml").write_text(values)
    return subprocess.run([TFPOLICY, "plan", "-p", "takeover", "--inventory", "inventory.yaml",
                           "--values", "values.yaml", "app.yaml"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120, check=False)


def test_helm_values_reach_the_scheduler(tmp_path: Path) -> None:
    # `helm get values` of a cluster with progressive migration on: the same verdict as the
    # inventory's spec.scheduler gives, so the two spellings meet in one record
    result = plan_with_values(tmp_path, "controller:\n  nvidiaOperatorProgressiveMigration: true\n")
    assert result.returncode == 1, result.stderr
    start = start_section(result.stdout)
    assert "1 node has no GPU objects (progressive migration)" in start


def test_default_helm_values_leave_native_pods_everywhere(tmp_path: Path) -> None:
    result = plan_with_values(tmp_path, "cluster: {name: tensor-fusion}\n")
    assert start_section(result.stdout).startswith("start (the manifests as they are): fits")


def test_bad_scheduler_values_name_the_values_file(tmp_path: Path) -> None:
    result = plan_with_values(tmp_path, "controller: {isolationModePolicy: strict}\n")
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("values.yaml"), lines
    assert "isolationModePolicy" in lines[0]
