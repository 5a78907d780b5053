"""GPU requests the registry cannot place (DESIGN §4a): each is reported at its line with
why, counted in the summary, and ``--fail-on warning`` fails on it; the ``podTemplates``
declaration an unknown kind's finding prints migrates the object once pasted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main

INVENTORY = ROOT / "tests" / "cases" / "plan-rollout" / "daemonset-surge-fits" / "inventory.yaml"

TRAINER = """\
apiVersion: example.com/v1
kind: Trainer
metadata:
  name: t
spec:
  roles:
    - name: a
      template:
        metadata:
          labels: {app: a}
        spec:
          containers:
            - name: main
              image: x
              resources:
                limits:
                  nvidia.com/gpu: 2
    - name: b
      template:
        spec:
          containers:
            - name: main
              image: x
              resources:
                limits:
                  nvidia.com/gpu: 1
"""

SERVER = """\
apiVersion: example.com/v1
kind: Server
metadata: {name: s}
spec:
  components:
    - name: a
      labels: {x: y}
      podSpec:
        containers:
          - name: m
            resources: {limits: {nvidia.com/gpu: 1}}
"""

OTHERS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      initContainers:
        - name: warm
          resources: {limits: {nvidia.com/gpu: 1}}
      containers:
        - name: m
          resources: {limits: {gpu.intel.com/i915: 1, huawei.com/Ascend910: "1"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers:
        - name: m
          resources: {limits: {nvidia.com/gpu: "${GPUS}"}}
"""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_an_unknown_kind_is_reported_at_each_request_with_a_declaration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "t.yaml", TRAINER)
    code, out, err = _run(capsys, "check", "-p", "takeover", str(path))
    assert code == 0
    lines = out.splitlines()
    assert [line.split(": [")[0].rsplit(":", 2)[1:] for line in lines] == [["17", "35"],
                                                                          ["26", "35"]]
    assert all("Trainer (example.com/v1) is a kind tfpolicy does not know" in line
               and "(unknown-kind)" in line for line in lines)
    assert 'paths: ["spec.roles[*].template"]' in lines[0]
    assert err == "tfpolicy: 2 GPU requests not migrated (2 unknown-kind)\n"


def _pasted(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> Any:
    """The object as ``apply`` writes it once the declaration its finding prints is in the
    policy."""
    path = _write(tmp_path, "t.yaml", text)
    _, out, _ = _run(capsys, "check", "-p", "takeover", str(path))
    declared = re.search(r"declare it: (podTemplates: \[.*\]) \(unknown-kind\)", out)
    assert declared is not None, out
    policy = yaml.safe_load((ROOT / "tfpolicy" / "policies" / "takeover.yaml").read_text())
    policy["spec"].update(yaml.safe_load(declared.group(1)))
    policy_file = _write(tmp_path, "policy.yaml", yaml.safe_dump(policy))
    code, out, err = _run(capsys, "apply", "-p", str(policy_file), str(path))
    assert code == 0 and err == ""
    return yaml.safe_load(out)


def test_pasting_the_declaration_migrates_the_object(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roles = _pasted(tmp_path, capsys, TRAINER)["spec"]["roles"]
    assert [r["template"]["metadata"]["labels"]["tensor-fusion.ai/enabled"]
            for r in roles] == ["true", "true"]


def test_a_component_with_labels_beside_its_pod_spec_gets_a_pods_declaration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    component = _pasted(tmp_path, capsys, SERVER)["spec"]["components"][0]
    assert component["labels"] == {"x": "y", "tensor-fusion.ai/enabled": "true"}
    assert component["annotations"]["tensor-fusion.ai/isolation"] == "shared"


def test_each_reason_is_said_where_the_request_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "o.yaml", OTHERS)
    code, out, err = _run(capsys, "check", "-p", "takeover", "--format", "json", str(path))
    found = sorted((f["tags"]["rule"], f["field"]["path"]) for f in json.loads(out)
                   if f["tags"]["rule"] != "would-change")
    assert ("gpu-init-container",
            "spec.template.spec.initContainers[0].resources.limits[nvidia.com/gpu]") in found
    assert ("gpu-vendor-not-configured",
            "spec.template.spec.containers[0].resources.limits[gpu.intel.com/i915]") in found
    assert ("gpu-vendor-not-configured",
            "spec.template.spec.containers[0].resources.limits[huawei.com/Ascend910]") in found
    assert code == 1  # the Job's placeholder is the stage's error, as before
    assert err == ""  # beside a report a program reads, no count line


def test_a_configured_vendor_is_migrated_not_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = OTHERS.split("---")[0].replace("initContainers", "volumes: []\n      x")
    path = _write(tmp_path, "o.yaml", text)
    policy = yaml.safe_load((ROOT / "tfpolicy" / "policies" / "takeover.yaml").read_text())
    policy["spec"]["gpuResources"] = ["gpu.intel.com/i915", "huawei.com/Ascend910"]
    policy_file = _write(tmp_path, "policy.yaml", yaml.safe_dump(policy))
    code, out, err = _run(capsys, "apply", "-p", str(policy_file), str(path))
    assert code == 0 and err == "", err
    labels = yaml.safe_load(out)["spec"]["template"]["metadata"]["labels"]
    assert labels["tensor-fusion.ai/enabled"] == "true"


@pytest.mark.parametrize("command", ["check", "apply"])
def test_fail_on_warning_fails_on_a_request_not_migrated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    path = _write(tmp_path, "t.yaml", TRAINER)
    assert _run(capsys, command, "-p", "takeover", str(path))[0] == 0
    assert _run(capsys, command, "-p", "takeover", "--fail-on", "error", str(path))[0] == 0
    assert _run(capsys, command, "-p", "takeover", "--fail-on", "warning", str(path))[0] == 1


def test_plan_counts_them_and_frees_none_of_their_gpus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "t.yaml", TRAINER)
    base = ["plan", "-p", "takeover", "--inventory", str(INVENTORY), "--no-consolidate"]
    code, out, _ = _run(capsys, *base, "--format", "json", str(path))
    summary = json.loads(out)["summary"]
    assert code == 0
    assert summary["gpuRequestsNotMigrated"] == {"unknown-kind": 2}
    assert summary["gpusFreed"] == 0
    code, out, _ = _run(capsys, *base, str(path))
    assert "GPU requests not migrated: 2 (2 unknown-kind)" in out
    assert _run(capsys, *base, "--fail-on", "warning", str(path))[0] == 1


def test_an_init_containers_gpu_is_reported_even_in_a_migrated_pod(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = OTHERS.split("---")[0].replace(
        "{gpu.intel.com/i915: 1, huawei.com/Ascend910: \"1\"}", "{nvidia.com/gpu: 1}")
    path = _write(tmp_path, "d.yaml", text)
    code, out, err = _run(capsys, "apply", "-p", "takeover", str(path))
    assert code == 0
    labels = yaml.safe_load(out)["spec"]["template"]["metadata"]["labels"]
    assert labels["tensor-fusion.ai/enabled"] == "true"  # the pod is migrated
    assert ":9:" in err and "(gpu-init-container)" in err  # its init container's GPU is not
    assert err.endswith("tfpolicy: 1 GPU request not migrated (1 gpu-init-container)\n")
