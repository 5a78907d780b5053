"""Text at fleet size: misfits grouped by reason and capped, progress only on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.cli import main

INVENTORY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
metadata: {name: full}
spec:
  defaultPool: pool
  pools:
    - name: pool
      nodeGroups: [{name: n, count: 3, gpusPerNode: 4, model: A100_SXM_80G}]
"""


def _deployments(count: int) -> str:
    return "---\n".join(f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: w{i:02d}, namespace: ml}}
spec:
  replicas: 1
  strategy: {{type: RollingUpdate, rollingUpdate: {{maxSurge: 1, maxUnavailable: 0}}}}
  selector: {{matchLabels: {{app: w{i:02d}}}}}
  template:
    metadata: {{labels: {{app: w{i:02d}}}}}
    spec:
      containers:
        - name: main
          image: x
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
""" for i in range(count))


def _files(tmp_path: Path) -> list[str]:
    (tmp_path / "inv.yaml").write_text(INVENTORY)
    (tmp_path / "m.yaml").write_text(_deployments(12))
    return ["plan", "-p", "takeover", "--inventory", str(tmp_path / "inv.yaml"),
            str(tmp_path / "m.yaml")]


def test_twelve_deadlocks_are_one_capped_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # 12 GPUs, 12 pods, no unavailability allowed: every surge pod waits, for one reason.
    assert main(_files(tmp_path)) == 1
    out = capsys.readouterr().out
    step = out.split("step 01 takeover-1: does-not-fit")[1].split("step 02")[0]
    assert "  does not fit: 12 workloads wait: 0/3 nodes are available" in step
    assert "deployment-w00-s1-0 of Deployment/ml/w00" in step
    assert "… and 7 more" in step
    assert "deployment-w11" not in step
    assert main([*_files(tmp_path)[:-1], "--format", "json", str(tmp_path / "m.yaml")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert len(report["steps"][0]["unschedulable"]) == 12


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", *_files(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and done.stderr == ""
    assert "step 01 takeover-1: does-not-fit" in done.stdout


def test_progress_on_a_terminal_and_not_in_stdout(tmp_path: Path) -> None:
    leader, follower = os.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", *_files(tmp_path)],
                              stdout=subprocess.PIPE, stderr=follower, text=True, check=False)
        os.close(follower)
        shown = os.read(leader, 65536).decode()
    finally:
        os.close(leader)
    assert done.returncode == 1
    assert "plan: reading" in shown and "plan: step 1/4 takeover-1" in shown
    assert "\r" not in done.stdout and "reading" not in done.stdout
    assert done.stdout.startswith("plan: 4 steps on 12 GPUs")
