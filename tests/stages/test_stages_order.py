"""DESIGN §1 and issue 14 §2 as a property over every ordered pair of built-in policies: a
stage's output depends only on the original. Where the second stage takes the template, its
output equals its output on the original; where it refuses, it leaves the first stage's
output byte for byte, with one ``earlier-stage-kept`` warning when that carries edits."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import yaml

from tests.conftest import policy_set, run
from tfpolicy.findings import Severity
from tfpolicy.rewrite.engine import PolicySet

POLICIES = ("takeover", "takeover-1", "takeover-25", "rightsize-example", "autoscale",
            "rollback")
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  template:
    metadata:
      labels: {app: web}
      annotations: {tensor-fusion.ai/isolation: soft}
    spec:
      containers:
      - name: main
        image: img
        resources:
          limits: {nvidia.com/gpu: 2}
      - name: side
        image: img
"""
BARE_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers:
  - name: main
    image: img
    resources:
      requests: {nvidia.com/gpu: "1"}
      limits: {nvidia.com/gpu: "1"}
"""
HAMI = """\
apiVersion: batch/v1
kind: Job
metadata: {name: shared}
spec:
  template:
    metadata:
      annotations: {hami.io/gpu-scheduler-policy: spread}
    spec:
      containers:
      - name: main
        image: img
        resources:
          limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 8000, nvidia.com/gpucores: 50}
"""
INPUTS = {"deployment": DEPLOYMENT, "bare-pod": BARE_POD, "hami": HAMI}


@pytest.fixture(scope="module")
def policies() -> dict[str, PolicySet]:
    return {name: policy_set(name) for name in POLICIES}


def _refused(findings: list[Any]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)


@pytest.mark.parametrize("first,second", list(itertools.product(POLICIES, POLICIES)))
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_second_stage_depends_only_on_the_original(
        policies: dict[str, PolicySet], name: str, first: str, second: str) -> None:
    original = INPUTS[name]
    once = run(original, policies[first])
    direct = run(original, policies[second])
    chained = run(once.text, policies[second])
    carried = [f for f in chained.findings if f.rule == "earlier-stage-kept"]
    if _refused(chained.findings):
        assert chained.text == once.text  # left as found
        assert len(carried) == (0 if once.text == original else 1)
        assert _refused(direct.findings)  # refused on the original too
    else:
        assert yaml.safe_load(chained.text) == yaml.safe_load(direct.text)
        assert not carried
