"""A container that asks HAMi only for a share (``nvidia.com/gpumem``, ``-percentage``,
``gpucores``, no ``nvidia.com/gpu``) holds the GPU HAMi's webhook gives it
(HAMi ``pkg/device/nvidia/device.go:398-415``): ``plan`` counts it as a device-plugin GPU
before the migration and as the converted share after rightsize at 100 %; ``admission``
says so. Golden case: tests/cases/plan-rollout/hami-only-shares."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main

CASE = ROOT / "tests" / "cases" / "plan-rollout" / "hami-only-shares"


def _section(out: str, head: str) -> str:
    return out.split(f"\n{head}")[1].split("\n\n")[0]


def test_plan_counts_hami_shares_as_gpus_then_as_converted_shares(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code = main(["plan", "-p", str(CASE / "policy.yaml"), "--inventory",
                 str(CASE / "inventory.yaml"), str(CASE / "input.yaml")])
    out, err = capsys.readouterr()
    assert code == 0, err
    start = _section(out, "start ")
    # notebook: 2 pods × the 1 GPU HAMi gives; pair: 1 pod × (1 asked + 1 given)
    assert "pods: 0 TensorFusion, 3 device plugin" in start
    assert "GPUs: 4 device plugin, 0 TensorFusion" in start
    assert "with no GPU" not in out
    last = _section(out, "step 08 ")
    assert "pods: 3 TensorFusion, 0 device plugin" in last
    # the converted shares: 2 × 3000 MiB + 1 pod × 2 GPUs × 2000 MiB = 10000 MiB
    assert "VRAM 9.76562/640 GiB; limits" in last
    # each step before the last keeps HAMi's pods on their cards
    for number in ("01", "04", "07"):
        assert "pods: 0 TensorFusion, 3 device plugin" in _section(out, f"step {number} ")


OTHERS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: asks-in-requests, namespace: lab}
spec:
  template:
    spec:
      containers:
        - name: main
          resources:
            requests: {nvidia.com/gpucores: "50"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: priority-only, namespace: lab}
spec:
  template:
    spec:
      containers:
        - name: main
          resources:
            limits: {nvidia.com/priority: "1"}
"""


def _admission(capsys: pytest.CaptureFixture[str], *files: Path) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["admission", "--format", "json", *map(str, files)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return {w["name"]: w for w in json.loads(out)["workloads"]}


def test_admission_notes_the_gpus_hami_gives(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    others = tmp_path / "others.yaml"
    others.write_text(OTHERS)
    found = _admission(capsys, CASE / "input.yaml", others)
    given = ("asks HAMi only for a share: HAMi's webhook gives it 1 GPU, which it holds "
             "until rightsize converts the share")
    assert found["notebook"]["reason"] == "not a GPU pod"  # to TensorFusion's webhook
    assert found["notebook"]["notes"] == [f"container 'jupyter' {given}"]
    assert found["pair"]["notes"] == [f"container 'helper' {given}"]
    # HAMi reads limits only, and its priority is no share
    assert found["asks-in-requests"]["notes"] == found["priority-only"]["notes"] == []


POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata:
  name: from-hami
spec:
  stage: rightsize
{hami}"""


@pytest.mark.parametrize(("hami", "code", "said"), [
    ("  hami: {}\n", 0, ""),  # hami stands in for resources
    ("", 2, "5:1: [error] 'resources' is a required property"),
    ("  hami: {memoryFactor: 0}\n", 2, "7:24: [error] 0 is less than the minimum of 1"),
    ("  hami:\n    resourceMem: example.com/m\n    resourceCores: example.com/m\n", 2,
     "9:20: [error] hami.resourceCores 'example.com/m' names another of HAMi's resources"),
    ("  hami: {resourcePriority: nvidia.com/gpu}\n", 2,
     "7:28: [error] hami.resourcePriority 'nvidia.com/gpu' names another of HAMi's"),
])
def test_the_hami_option_is_validated(hami: str, code: int, said: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY.format(hami=hami))
    assert main(["validate", str(policy)]) == code
    err = capsys.readouterr().err
    assert f"{policy}:{said}" in err if said else "1 policies valid" in err
