"""Through the real CLI: a stage that refuses a template leaves it exactly as it found it, and
says when that still carries an earlier stage's edits (docs/stages.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

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
"""


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      containers:
        - name: main
          image: pytorch:2
          resources:
            limits:
              nvidia.com/gpu: 2
"""


def apply(policy: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "apply", "-p", policy, "-"], input=text,
                          capture_output=True, text=True, check=False)


def test_refused_after_a_stage_keeps_that_stage_and_names_it() -> None:
    """A bare Pod taken over, then refused by rightsize (its resources cannot change); the
    golden case stages-refused/pod-autoscaled-then-canary refuses a rightsized one."""
    taken = apply("takeover", POD)
    assert taken.returncode == 0, taken.stderr
    refused = apply("autoscale", taken.stdout)
    assert refused.returncode == 1
    assert refused.stdout == taken.stdout
    assert "[error]" in refused.stderr
    assert "refuses to change a Pod's resources" in refused.stderr
    warning = [line for line in refused.stderr.splitlines() if "earlier-stage" in line
               or "left as found" in line]
    assert len(warning) == 1
    assert "earlier takeover stage's edits (enabled, isolation)" in warning[0]


def test_refused_original_has_no_warning_about_earlier_stages() -> None:
    refused = apply("takeover-25", POD)
    assert refused.returncode == 1
    assert refused.stdout == POD
    assert "left as found" not in refused.stderr


def test_rollback_of_the_refused_output_gives_the_original() -> None:
    refused = apply("rightsize-example", apply("takeover", POD).stdout)
    assert "earlier takeover stage's edits" in refused.stderr
    assert apply("rollback", refused.stdout).stdout == POD


def test_a_stage_that_succeeds_does_not_warn() -> None:
    autoscaled = apply("autoscale", DEPLOYMENT)
    assert autoscaled.returncode == 0, autoscaled.stderr
    taken = apply("takeover", autoscaled.stdout)
    assert taken.returncode == 0, taken.stderr
    # as data: where undone keys go back in their mapping is docs/stages.md's matter
    assert yaml.safe_load(taken.stdout) == yaml.safe_load(apply("takeover", DEPLOYMENT).stdout)
    assert "left as found" not in taken.stderr
