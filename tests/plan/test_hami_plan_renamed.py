"""HAMi's default card under renamed share names: a container whose limits ask only for a
share by the names a policy's ``spec.hami`` declares holds the GPU HAMi's webhook gives it
(HAMi ``pkg/device/nvidia/device.go:398-415``), in ``plan`` and in ``admission``; without
the declaration those names are nobody's GPU. Golden case:
tests/cases/plan-rollout/hami-renamed-shares (the same fleet as hami-only-shares)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.plan.test_sim_hami import POLICY as HAMI_POLICY
from tfpolicy.cli import main

CASE = ROOT / "tests" / "cases" / "plan-rollout" / "hami-renamed-shares"
INVENTORY = ROOT / "tests" / "cases" / "plan-rollout" / "hami-only-shares" / "inventory.yaml"

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: lab}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: main
          image: example/app:1
          resources:
            {section}: {{{resources}}}
"""
FLEET = "---\n".join(DEPLOYMENT.format(name=n, section=s, resources=r) for n, s, r in (
    ("renamed", "limits", 'example.com/vgpu-memory: "3000", example.com/vgpu-cores: "30"'),
    ("in-requests", "requests", 'example.com/vgpu-cores: "30"'),
    ("priority-only", "limits", 'example.com/vgpu-priority: "1"'),
    ("with-count", "limits", 'nvidia.com/gpu: "1", example.com/vgpu-cores: "30"'),
    ("chart-names", "limits", 'nvidia.com/gpumem: "3000"'),
))
POLICY = HAMI_POLICY + """\
  resources:
    tflops: {{request: "20", limit: "40"}}
    vram: {{request: 4Gi, limit: 8Gi}}
"""
RENAMED = ("  hami:\n    resourceMem: example.com/vgpu-memory\n"
           "    resourceCores: example.com/vgpu-cores\n"
           "    resourcePriority: example.com/vgpu-priority\n")
GIVEN = ("container 'main' asks HAMi only for a share: HAMi's webhook gives it 1 GPU, "
         "which it holds until rightsize converts the share")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    found = {"fleet": tmp_path / "fleet.yaml", "renamed": tmp_path / "renamed.yaml",
             "plain": tmp_path / "plain.yaml"}
    found["fleet"].write_text(FLEET)
    found["renamed"].write_text(POLICY.format(hami=RENAMED))
    found["plain"].write_text(POLICY.format(hami=""))
    return found


def _admission(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["admission", "--format", "json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return {w["name"]: w for w in json.loads(out)["workloads"]}


def _notes(found: dict[str, Any]) -> dict[str, list[str]]:
    return {name: item["notes"] for name, item in found.items()}


def test_admission_notes_the_card_for_the_renamed_shares(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    found = _admission(capsys, "-p", str(files["renamed"]), str(files["fleet"]))
    assert found["renamed"]["reason"] == "not a GPU pod"  # to TensorFusion's webhook
    # HAMi reads limits only, its priority is no share, and a count leaves nothing to add;
    # the chart's names still count beside the renamed ones
    assert _notes(found) == {"renamed": [GIVEN], "in-requests": [], "priority-only": [],
                             "with-count": [], "chart-names": [GIVEN]}


@pytest.mark.parametrize("policy", [None, "plain"])
def test_without_the_declaration_renamed_names_hold_no_card(
        policy: str | None, files: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    given = ["-p", str(files[policy])] if policy else []
    found = _admission(capsys, *given, str(files["fleet"]))
    assert _notes(found) == {"renamed": [], "in-requests": [], "priority-only": [],
                             "with-count": [], "chart-names": [GIVEN]}


def test_admission_reads_the_project_config(files: dict[str, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()  # the config lookup stops at the repository root
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [renamed.yaml]\n")
    monkeypatch.chdir(tmp_path)
    found = _admission(capsys, "fleet.yaml")
    assert found["renamed"]["notes"] == [GIVEN]


def test_admission_refuses_an_invalid_policy(files: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(POLICY.format(hami="  hami: {memoryFactor: 0}\n"))
    out = tmp_path / "pods"
    code = main(["admission", "-p", str(bad), "-o", str(out), str(files["fleet"])])
    captured = capsys.readouterr()
    assert code == 2
    assert f"{bad}:7:24: [error] 0 is less than the minimum of 1" in captured.err
    assert "Traceback" not in captured.err and not out.exists()


def _start(capsys: pytest.CaptureFixture[str], policy: Path, fleet: Path) -> str:
    capsys.readouterr()
    code = main(["plan", "-p", str(policy), "--inventory", str(INVENTORY), str(fleet)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.split("\nstart ")[1].split("\n\n")[0]


def _one(tmp_path: Path, name: str) -> Path:
    doc = next(d for d in FLEET.split("---\n") if f"name: {name}," in d)
    path = tmp_path / f"deployment-{name}.yaml"
    path.write_text(doc)
    return path


@pytest.mark.parametrize(("policy", "pods", "gpus"), [
    ("renamed", "pods: 0 TensorFusion, 2 device plugin\n", "GPUs: 2 device plugin, "),
    ("plain", "pods: 0 TensorFusion, 0 device plugin\n", "GPUs: 0 device plugin, "),
])
def test_plan_counts_one_card_per_replica_before_migration(
        policy: str, pods: str, gpus: str, files: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    start = _start(capsys, files[policy], _one(tmp_path, "renamed"))
    assert pods in start and gpus in start


@pytest.mark.parametrize("name", ["in-requests", "priority-only"])
def test_plan_gives_no_card_for_requests_or_priority(
        name: str, files: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    start = _start(capsys, files["renamed"], _one(tmp_path, name))
    assert "0 device plugin" in start and "GPUs: 0 device plugin, 0 TensorFusion" in start


def test_plan_counts_renamed_and_chart_names_together(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    start = _start(capsys, files["renamed"], files["fleet"])
    # renamed 2 + with-count 2 + chart-names 2 pods, one GPU each
    assert "pods: 0 TensorFusion, 6 device plugin" in start
    assert "GPUs: 6 device plugin, 0 TensorFusion" in start


def test_the_golden_case_matches_the_chart_names_case() -> None:
    """The renamed fleet is planned exactly as the same fleet by the chart's names."""
    chart = (ROOT / "tests/cases/plan-rollout/hami-only-shares/expected.txt").read_text()
    renamed = (CASE / "expected.txt").read_text()
    assert "pods: 0 TensorFusion, 3 device plugin" in renamed.split("\nstep 01")[0]
    assert renamed.replace("example.com/vgpu-memory", "nvidia.com/gpumem") == chart


@pytest.mark.parametrize(("name", "why"), [
    # an extended resource in requests alone: the API server refuses the pod, so the plan
    # leaves it out and says so
    ("in-requests", "Limit must be set for non overcommitable resources"),
    ("priority-only", "hold no GPU")])
def test_plan_says_why_such_pods_hold_no_gpu(name: str, why: str, files: dict[str, Path],
                                             tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    main(["plan", "-p", str(files["renamed"]), "--inventory", str(INVENTORY),
          str(_one(tmp_path, name))])
    said = "".join(capsys.readouterr())
    assert why in said and "over enabled-replicas" not in said
