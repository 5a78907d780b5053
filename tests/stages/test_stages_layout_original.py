"""A stage's record depends only on the original template (DESIGN §1), through the real CLI.

When an earlier stage removed keys above one the next stage replaces, the document
shows that key below other siblings than the original did. The record's layout still
names the original's sibling and the comment lines the key itself had, as a stage
applied to the original writes it; and rollback gives the user's bytes back either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
RECORD = "tfpolicy.dev/original"
TF = "tensor-fusion.ai/"
RIGHTSIZE = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: p-rightsize}
spec:
  stage: rightsize
  resources:
    tflops: {request: "30", limit: "60"}
    vram: {limit: 8Gi}
"""
TAKEOVER = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: p-takeover}
spec:
  stage: takeover
  enabledReplicas: 3
"""
ABOVE = """\
            tensor-fusion.ai/autoscale-target: vram
"""
# rightsize removes both compute-percent keys (they conflict with its tflops); takeover
# then replaces enabled-replicas, which followed them.
ANNOTATIONS = """\
            # about the limit
            tensor-fusion.ai/compute-percent-limit: '50'

            tensor-fusion.ai/compute-percent-request: '25'
            # about the replicas
            tensor-fusion.ai/enabled-replicas: '1'  # one
            tensor-fusion.ai/autoscale: 'true'
"""
WORKLOAD = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: train
  namespace: ml
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        metadata:
          labels:
            pod-template-hash: abc  # counted: the cap is enforced, so takeover writes it
          annotations:
{annotations}\
        spec:
          containers:
          - name: c0
            image: img:1
            resources:
              limits:
                nvidia.com/gpu: 1
"""


def apply(folder: Path, policy: str, text: str) -> str:
    (folder / "in.yaml").write_text(text)
    done = subprocess.run([TFPOLICY, "apply", "-p", policy, "in.yaml"], cwd=folder,
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def annotations(text: str) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(text)["spec"]["jobTemplate"]["spec"]["template"][
        "metadata"]["annotations"]
    return found


def record(text: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(annotations(text)[RECORD])
    return found


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    (tmp_path / "rightsize.yaml").write_text(RIGHTSIZE)
    (tmp_path / "takeover.yaml").write_text(TAKEOVER)
    return tmp_path


@pytest.mark.parametrize("above", [ABOVE, ""], ids=["after-a-sibling", "first"])
def test_takeover_over_rightsize_records_what_takeover_alone_does(policies: Path,
                                                                   above: str) -> None:
    original = WORKLOAD.format(annotations=above + ANNOTATIONS)
    rightsized = apply(policies, "rightsize.yaml", original)
    assert f"{TF}compute-percent-limit" not in annotations(rightsized)
    via = apply(policies, "takeover.yaml", rightsized)
    direct = apply(policies, "takeover.yaml", original)
    assert record(via) == record(direct)
    entry = record(direct)["layout"][f"metadata.annotations[{TF}enabled-replicas]"]
    assert (entry["after"], entry.get("skip")) == (f"{TF}compute-percent-request", 1)
    assert yaml.safe_load(via) == yaml.safe_load(direct)
    for staged in (via, direct):
        assert apply(policies, "rollback", staged) == original
