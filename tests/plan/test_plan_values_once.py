"""``plan --values`` reads the values file once: the webhook and the scheduler both see it.

A values file may be a pipe (``--values <(helm get values tf -o yaml)``), which
gives its content once. Here the values turn on progressive migration, which
keeps the device-plugin pod of the first takeover step off a node where a
TensorFusion worker runs: the step does not fit. Read twice, the scheduler
would have seen an empty pipe and its defaults, and the step would fit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.plan.inventories import one_node

INVENTORY = one_node(4)
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - {name: main, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
"""
VALUES = "controller:\n  nvidiaOperatorProgressiveMigration: true\n"


def _plan(tmp_path: Path, values: str | None, stdin: str = "") -> tuple[int, str]:
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    (tmp_path / "manifests.yaml").write_text(MANIFESTS)
    (tmp_path / "values.yaml").write_text(VALUES)
    more = [] if values is None else ["--values", values]
    done = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "takeover", "--inventory",
         "inventory.yaml", "--format", "json", *more, "manifests.yaml"],
        cwd=tmp_path, input=stdin, capture_output=True, text=True, check=False)
    assert done.stderr == ""
    return done.returncode, done.stdout


def test_values_from_a_pipe_count_as_from_a_file(tmp_path: Path) -> None:
    from_file = _plan(tmp_path, "values.yaml")
    from_pipe = _plan(tmp_path, "/dev/stdin", VALUES)
    assert from_pipe == from_file
    assert from_file[0] == 1  # progressive migration: the device-plugin pod has no node
    assert _plan(tmp_path, None)[0] == 0  # the chart's defaults: it fits
