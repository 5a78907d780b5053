"""``tfpolicy admission`` end to end, and the webhook traps ``tfpolicy check`` reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy import yamlio
from tfpolicy.cli import main

MANIFESTS = ROOT / "examples" / "manifests"

TWO_CONTAINERS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: two, namespace: ml}
spec:
  template:
    metadata:
      labels: {tensor-fusion.ai/enabled: "true"}
      annotations: {tensor-fusion.ai/tflops-request: "10", tensor-fusion.ai/vram-request: 1Gi}
    spec:
      containers:
        - {name: a, image: x}
        - {name: b, image: y}
"""

HAND_TRAP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: handmade, namespace: ml}
spec:
  template:
    metadata:
      labels: {tensor-fusion.ai/enabled: "true"}
    spec:
      containers:
        - name: main
          image: x
          resources: {limits: {nvidia.com/gpu: 1}}
"""

ONLY_OTHER = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: only-other}
spec:
  stage: takeover
  match: {namespaces: [other]}
"""

AUTO = "dynamicConfig:\n  autoMigration:\n    enable: true\n"


def test_examples_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admission", str(MANIFESTS)]) == 0
    out = capsys.readouterr().out
    assert "Deployment/ml-serving/llama-8b-vllm: untouched" in out
    assert "PyTorchJob/ml-training/resnet-ddp/Worker: untouched" in out
    assert out.endswith("10 pod templates, 0 rejected\n")


def test_auto_migration_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(AUTO)
    assert main(["admission", "--values", str(values), "--format", "json", str(MANIFESTS)]) == 0
    report = json.loads(capsys.readouterr().out)
    by_name = {(w["name"], w["template"]): w for w in report["workloads"]}
    vllm = by_name[("llama-8b-vllm", "")]
    assert vllm["decision"] == "migrated"
    assert vllm["allocation"]["isolation"] == "shared"
    assert vllm["podFile"] == "ml-serving_Deployment_llama-8b-vllm.yaml"
    assert by_name[("realtime-asr", "")]["decision"] == "untouched"  # opted out
    assert report["rejected"] == 0


def test_output_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(AUTO)
    out = tmp_path / "pods"
    assert main(["admission", "--values", str(values), "-o", str(out), str(MANIFESTS)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "ml-serving_Deployment_llama-8b-vllm.yaml" in names
    assert "ml-training_PyTorchJob_resnet-ddp_1.yaml" in names
    pod = yamlio.load_all((out / "ml-serving_Deployment_llama-8b-vllm.yaml").read_text(),
                          file="pod.yaml")[0]
    assert pod["kind"] == "Pod"
    assert pod["metadata"]["namespace"] == "ml-serving"
    assert pod["metadata"]["labels"]["tensor-fusion.ai/enabled"] == "true"


def test_stream_and_rejection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "two.yaml"
    manifest.write_text(TWO_CONTAINERS + "---\n" + HAND_TRAP)
    assert main(["admission", "-o", "-", str(manifest)]) == 1
    captured = capsys.readouterr()
    assert "Deployment/ml/two: rejected" in captured.err
    assert "inject container has to be specified" in captured.err
    pods = yamlio.load_all(captured.out, file="<stdout>")
    assert [p["metadata"]["name"] for p in pods] == ["handmade"]


def test_bad_input_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text("kind: [unclosed\n")
    out = tmp_path / "pods"
    assert main(["admission", "-o", str(out), str(manifest)]) == 2
    assert not out.exists()
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_subprocess() -> None:
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", "admission", str(MANIFESTS)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "10 pod templates" in done.stdout


def test_check_reports_hand_written_traps(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "trap.yaml"
    manifest.write_text(HAND_TRAP)
    policy = tmp_path / "policy.yaml"
    policy.write_text(ONLY_OTHER)
    assert main(["check", "-p", str(policy), str(manifest)]) == 0
    out = capsys.readouterr().out
    assert f"{manifest}:5:3: [warning] Deployment/ml/handmade:" in out
    assert "(webhook-soft-no-vram)" in out


@pytest.mark.parametrize("policy", ["takeover", "takeover-25", "rightsize-example"])
def test_check_is_quiet_on_own_output(tmp_path: Path, policy: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(HAND_TRAP.replace('labels: {tensor-fusion.ai/enabled: "true"}',
                                          "labels: {app: x}"))
    main(["check", "-p", policy, str(manifest)])
    assert "webhook-" not in capsys.readouterr().out
    main(["fix", "-p", policy, str(manifest)])
    capsys.readouterr()
    main(["check", "-p", policy, str(manifest)])
    assert "webhook-" not in capsys.readouterr().out
