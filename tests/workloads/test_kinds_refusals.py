"""GPU pods no stage takes whatever their kind (docs/kinds.md, "Pods no stage takes"), and a
GPU value the API server refuses, each said with what is wrong, never blamed on the kind:

- ``requests`` without, or unlike, ``limits`` for a GPU: an error naming Kubernetes' rule,
  nothing written (rightsize used to pick the limit);
- ``nvidia.com/gpu: -1`` (or ``0.5``): an error saying what is wrong with the value;
- ``spec.nodeName``: no scheduler runs, TensorFusion's neither; reported, not migrated,
  unless TensorFusion already has the template (rollback must still undo it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: app, namespace: ml}}
spec:
  selector: {{matchLabels: {{app: a}}}}
  template:
    metadata:
      labels: {{app: a{labels}}}
    spec:{spec}
      containers:
        - name: main
          image: x
          resources:
{resources}
"""
REQUESTS_ONLY = "            requests: {nvidia.com/gpu: 2}"
UNEQUAL = "            requests: {nvidia.com/gpu: 2}\n            limits: {nvidia.com/gpu: 1}"
EQUAL = "            requests: {nvidia.com/gpu: '1'}\n            limits: {nvidia.com/gpu: 1}"
NODE = "\n      nodeName: gpu-node-7"


def _write(tmp_path: Path, resources: str, spec: str = "", labels: str = "") -> Path:
    path = tmp_path / "app.yaml"
    path.write_text(DEPLOYMENT.format(resources=resources, spec=spec, labels=labels))
    return path


def _findings(path: Path, capsys: pytest.CaptureFixture[str],
              policy: str = "takeover") -> tuple[int, list[tuple[str, str, str]]]:
    code = main(["check", "-p", policy, "--format", "json", str(path)])
    out, _ = capsys.readouterr()
    return code, [(f["tags"]["rule"], f["severity"], f["message"]) for f in json.loads(out)]


@pytest.mark.parametrize(("resources", "says"), [
    (REQUESTS_ONLY, "Limit must be set for non overcommitable resources"),
    (UNEQUAL, "must be equal to nvidia.com/gpu limit"),
])
@pytest.mark.parametrize("policy", ["takeover", "rightsize-example"])
def test_a_request_unlike_its_limit_is_an_error_and_nothing_is_written(
        resources: str, says: str, policy: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, resources)
    code, found = _findings(path, capsys, policy)
    assert code == 1
    assert [(r, s) for r, s, _ in found] == [("gpu-request-not-limit", "error")]
    assert says in found[0][2] and "the API server refuses this pod" in found[0][2]
    assert main(["apply", "-p", policy, str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == path.read_text() and "[error]" in err


def test_a_request_equal_to_its_limit_is_migrated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, EQUAL)
    assert main(["apply", "-p", "takeover", str(path)]) == 0
    labels = yaml.safe_load(capsys.readouterr()[0])["spec"]["template"]["metadata"]["labels"]
    assert labels["tensor-fusion.ai/enabled"] == "true"


@pytest.mark.parametrize(("value", "says"), [
    ("-1", "must be greater than or equal to 0"),
    # a positive value makes a GPU workload, whose stage refuses what is not a whole count
    ("0.5", "is not a whole GPU count"), ("'1:30'", "is not a whole GPU count"),
])
def test_a_value_the_api_server_refuses_is_said_as_such(
        value: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, f"            limits: {{nvidia.com/gpu: {value}}}")
    code, found = _findings(path, capsys)
    assert code == 1
    assert [(r, s) for r, s, _ in found] == [("invalid-quantity", "error")]
    assert says in found[0][2], found


def test_a_pod_bound_to_a_node_is_reported_not_migrated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "            limits: {nvidia.com/gpu: 1}", NODE)
    code, found = _findings(path, capsys)
    assert code == 0
    assert [(r, s) for r, s, _ in found] == [("gpu-node-name", "warning")]
    assert "'gpu-node-7'" in found[0][2] and "never start" in found[0][2]
    assert main(["check", "-p", "takeover", str(path)]) == 0
    assert "1 GPU request not migrated (1 gpu-node-name)" in capsys.readouterr()[1]
    assert main(["apply", "-p", "takeover", str(path)]) == 0
    assert capsys.readouterr()[0] == path.read_text()


def test_a_tensor_fusion_pod_bound_to_a_node_still_rolls_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bound to a node after tfpolicy took it over: ``check`` warns, rollback undoes it."""
    path = _write(tmp_path, "            limits: {nvidia.com/gpu: 1}")
    original = path.read_text()
    assert main(["apply", "-p", "takeover", str(path)]) == 0
    taken = capsys.readouterr()[0]
    bound = taken.replace("    spec:\n      containers:", f"    spec:{NODE}\n      containers:")
    assert bound != taken
    path.write_text(bound)
    _, found = _findings(path, capsys)
    assert ("webhook-node-name", "warning") in {(r, s) for r, s, _ in found}
    assert main(["apply", "-p", "rollback", str(path)]) == 0
    back = capsys.readouterr()[0]
    assert back == original.replace("    spec:\n      containers:",
                                    f"    spec:{NODE}\n      containers:")


def test_plan_leaves_a_pod_bound_to_a_node_out_and_counts_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = ROOT / "tests" / "cases" / "plan-rollout" / "daemonset-surge-fits" / "inventory.yaml"
    path = _write(tmp_path, "            limits: {nvidia.com/gpu: 1}", NODE)
    main(["plan", "-p", "takeover", "--inventory", str(inventory), str(path)])
    out = capsys.readouterr()[0]
    assert "not simulated: spec.nodeName binds this pod to node 'gpu-node-7'" in out
    assert "GPU requests not migrated: 1 (1 gpu-node-name)" in out
