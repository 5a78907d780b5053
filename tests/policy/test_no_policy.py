"""A GPU workload no policy selects is a located warning in ``check`` and ``apply``, and
``--fail-on`` treats it as any warning (docs/kinds.md, docs/exit-codes.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfpolicy.cli import main

POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: serving-only}
spec:
  stage: takeover
  match: {namespaces: [serving]}
"""
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ml}
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: vllm
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "llm.yaml").write_text(MANIFEST)
    return str(tmp_path / "policy.yaml"), str(tmp_path / "llm.yaml")


@pytest.mark.parametrize("command", ["check", "apply"])
def test_an_unselected_gpu_workload_is_a_located_warning(
        command: str, files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    policy, manifest = files
    assert main([command, "-p", policy, manifest]) == 0
    out, err = capsys.readouterr()
    err = err if command == "apply" else out  # check reports on stdout, apply on stderr
    assert (f"{manifest}:6:3: [warning] Deployment/ml/llm: GPU workload selected by no "
            "policy (serving-only)") in err, err
    assert "(no-policy)" in err
    assert main([command, "-p", policy, "--fail-on", "warning", manifest]) == 1


def test_a_selected_or_opted_out_workload_is_not_warned_about(
        tmp_path: Path, files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    policy, _ = files
    opted = tmp_path / "opted.yaml"
    opted.write_text(MANIFEST.replace("    spec:\n      containers:",
                                      "    metadata:\n      labels: "
                                      "{tensor-fusion.ai/enabled: \"false\"}\n"
                                      "    spec:\n      containers:"))
    selected = tmp_path / "selected.yaml"
    selected.write_text(MANIFEST.replace("namespace: ml", "namespace: serving"))
    capsys.readouterr()
    assert main(["apply", "-p", policy, "--fail-on", "warning", str(opted), str(selected)]) == 0
    assert "selected by no policy" not in capsys.readouterr().err
