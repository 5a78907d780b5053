"""GPUs named by a profile instead of a resource, and GPU pod specs outside Kubernetes
objects (docs/kinds.md): a KubeAI ``Model`` asking a GPU profile is reported with the
reason (its operator lets nothing of the Model reach its pods' labels and annotations); a
custom resource of an unknown kind asking GPUs by a profile string or a count field is an
info finding naming the field; a document with no apiVersion and kind that holds a pod
spec asking for a GPU is an info finding. None of them is migrated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfpolicy.cli import main
from tfpolicy.workloads.profiles import candidates

MODELS = """\
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: llama-70b}
spec:
  engine: VLLM
  url: hf://meta-llama/Llama-3.1-70B-Instruct
  resourceProfile: nvidia-gpu-h100:8
---
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: tpu}
spec:
  engine: VLLM
  resourceProfile: google-tpu-v5e-2x2:1
---
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: small}
spec:
  engine: OLlama
  resourceProfile: cpu:2
"""
UNKNOWN = """\
apiVersion: example.com/v1
kind: Trainer
metadata: {name: t}
spec:
  profile: amd-gpu-mi300x:2
  workers:
    - gpus: 4
    - numGPUs: "2"
    - accelerators: "A100:8"
    - gpu: true
    - gpus: 0
  image: example/train:gpu
"""
JOB_FILE = """\
# a batch system's job file, kept beside the manifests
job:
  name: train
  tasks:
    - containers:
        - name: main
          image: example/train:1
          resources:
            limits:
              nvidia.com/gpu: 2
"""


def _check(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]
           ) -> tuple[int, list[tuple[str, str, str, str]], str]:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    code = main(["check", "-p", "takeover", "--format", "json", str(path)])
    out, _ = capsys.readouterr()
    found = [(f["tags"]["rule"], f["severity"], f["field"]["path"], f["message"])
             for f in json.loads(out)]
    main(["check", "-p", "takeover", str(path)])
    return code, found, capsys.readouterr()[1]


def test_a_kubeai_model_asking_a_gpu_profile_is_reported_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found, text = _check(tmp_path, MODELS, capsys)
    assert code == 0
    assert [(r, s, p) for r, s, p, _ in found] == [
        ("kind-not-migrated", "warning", "spec.resourceProfile")] * 2
    assert "model_controller.go:217-248" in found[0][3] and "jsonPatches" in found[0][3]
    assert "2 GPU requests not migrated (2 kind-not-migrated)" in text


def test_a_profile_or_a_count_in_an_unknown_kind_is_an_info_naming_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found, _ = _check(tmp_path, UNKNOWN, capsys)
    assert code == 0
    assert sorted((r, s, p) for r, s, p, _ in found) == [
        ("gpu-profile", "info", "spec.profile"),
        ("gpu-profile", "info", "spec.workers[0].gpus"),
        ("gpu-profile", "info", "spec.workers[1].numGPUs"),
        ("gpu-profile", "info", "spec.workers[2].accelerators")]


def test_kubernetes_own_kinds_hold_no_profile() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
              "data": {"gpus": "4", "profile": "nvidia-gpu-l4:1"}}
    assert list(candidates(config)) == []
    assert list(candidates({"gpus": 4})) == []  # outside objects: only pod specs count


def test_a_pod_spec_outside_objects_is_an_info(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found, text = _check(tmp_path, JOB_FILE, capsys)
    assert code == 0
    assert [(r, s) for r, s, _, _ in found] == [("gpu-not-an-object", "info")]
    assert "not a Kubernetes object" in found[0][3]
    assert "not migrated (" not in text  # an info: not counted among GPU requests
