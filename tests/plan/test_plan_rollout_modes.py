"""``--rollout concurrent`` (the default) and ``--rollout sequential`` can disagree on a step.

One node, two GPUs, both held by the device plugin. ``a-surge`` (maxSurge 1,
maxUnavailable 0) can only start its new pod on a free GPU; ``b-frees``
(maxSurge 0, maxUnavailable 1) frees its GPU before it starts its new pod.
Rolled one by one in sorted order, ``a-surge`` goes first and waits for a GPU
nobody frees; rolled at once, as a GitOps sync applies them, ``b-frees``
frees a GPU, ``a-surge``'s surge pod takes it, its old pod then leaves, and
``b-frees``'s new pod lands there. Both verdicts come from the real command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.plan.inventories import one_node

INVENTORY = one_node(2)


def _deployment(name: str, surge: int, unavailable: int) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: ml}}
spec:
  replicas: 1
  strategy:
    type: RollingUpdate
    rollingUpdate: {{maxSurge: {surge}, maxUnavailable: {unavailable}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - {{name: main, image: x, resources: {{limits: {{nvidia.com/gpu: 1}}}}}}
"""


def _plan(tmp_path: Path, *mode: str) -> tuple[int, dict[str, Any]]:
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    (tmp_path / "manifests.yaml").write_text(
        _deployment("a-surge", 1, 0) + "---\n" + _deployment("b-frees", 0, 1))
    done = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "takeover", "--inventory",
         "inventory.yaml", "--no-consolidate", "--format", "json", *mode, "manifests.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.stderr == ""
    return done.returncode, json.loads(done.stdout)


def test_concurrent_rollout_fits_where_sequential_deadlocks(tmp_path: Path) -> None:
    default_code, default = _plan(tmp_path)
    concurrent_code, concurrent = _plan(tmp_path, "--rollout", "concurrent")
    sequential_code, sequential = _plan(tmp_path, "--rollout", "sequential")
    assert default == concurrent and default_code == concurrent_code == 0

    first, alone = concurrent["steps"][0], sequential["steps"][0]
    assert first["rolled"] == alone["rolled"] == ["Deployment/ml/a-surge",
                                                   "Deployment/ml/b-frees"]
    assert (first["status"], first["unschedulable"]) == ("fits", [])
    assert first["pods"]["tensorFusion"] == 2

    assert (sequential_code, alone["status"]) == (1, "does-not-fit")
    [waiting] = alone["unschedulable"]
    assert (waiting["workload"], waiting["oldRunning"], waiting["newRunning"]) == (
        "Deployment/ml/a-surge", 1, 0)
    assert waiting["message"] == "0/1 nodes are available: 1 GPU used by the device plugin."
    assert [s["status"] for s in sequential["steps"][1:]] == ["not-run"] * 3
