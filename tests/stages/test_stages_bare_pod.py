"""Rightsize on a bare Pod is refused, as enabled-replicas there is (tfpolicy/stages/rightsize.py).

A running Pod's resources cannot change (kubernetes/kubernetes
pkg/apis/core/validation/validation.go, ``ValidatePodUpdate``, ``ValidatePodResize``:
"resource limits cannot be removed"), so a sync that takes its GPU limit away is
refused by the API server. The template is left as it is, with one located error;
takeover (labels and annotations only) still migrates it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
    - name: main
      image: pytorch:2
      resources:
        limits:
          nvidia.com/gpu: 2
    - name: side
      image: busybox
"""


def _apply(policy: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "apply", "-p", policy, "-"], input=text,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("policy", ["rightsize-example", "autoscale"])
def test_rightsize_of_a_bare_pod_is_refused_and_writes_nothing(policy: str) -> None:
    done = _apply(policy, POD)
    assert done.returncode == 1 and done.stdout == POD
    errors = [line for line in done.stderr.splitlines() if "[error]" in line]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith("<stdin>:9:7: [error] Pod/trainer: rightsize removes the GPU "
                                "resources of container 'main'")


def test_a_capped_rightsize_says_only_what_the_cap_says(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                      "metadata: {name: p}\nspec:\n  stage: rightsize\n  enabledReplicas: 1\n"
                      "  resources: {tflops: {request: '1', limit: '1'}, vram: {limit: 1Gi}}\n")
    done = _apply(str(policy), POD)
    errors = [line for line in done.stderr.splitlines() if "[error]" in line]
    assert done.returncode == 1 and done.stdout == POD
    assert len(errors) == 1 and "enabled-replicas" in errors[0], done.stderr


def test_takeover_of_a_bare_pod_still_migrates_it() -> None:
    done = _apply("takeover", POD)
    assert done.returncode == 0, done.stderr
    assert "tensor-fusion.ai/enabled" in done.stdout and "nvidia.com/gpu: 2" in done.stdout
