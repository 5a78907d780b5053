"""``plan`` simulates the pods whose parts live apart (KServe InferenceService components,
LLMInferenceService workloads) through the view the engine builds, with each step's edits
and the kind's replica count; the golden cases are tests/cases/plan-rollout/{kserve-isvc-
min-replicas,llmisvc-prefill}. These tests pin what those cases must keep saying."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.files.documents import read_documents
from tfpolicy.plan.units import units_of
from tfpolicy.scheduler import Strategy, StrategyType
from tfpolicy.workloads import Registry

CASES = ROOT / "tests" / "cases" / "plan-rollout"


def _plan(capsys: pytest.CaptureFixture[str], case: str, *files: Path) -> str:
    capsys.readouterr()
    code = main(["plan", "-p", "rightsize-example", "--inventory",
                 str(CASES / case / "inventory.yaml"), *map(str, files)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _step(out: str, number: str) -> str:
    return out.split(f"\nstep {number} ")[1].split("\n\n")[0]


def test_an_inference_service_runs_min_replicas_pods_and_rolls(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _plan(capsys, "kserve-isvc-min-replicas",
                CASES / "kserve-isvc-min-replicas" / "input.yaml")
    assert out == (CASES / "kserve-isvc-min-replicas" / "expected.txt").read_text()
    start = out.split("\nstart ")[1].split("\n\n")[0]
    assert "pods: 0 TensorFusion, 3 device plugin" in start  # predictor.minReplicas
    assert "rolls 1 workloads: InferenceService/ml/llama-8b/predictor" in _step(out, "01")
    # rightsize's shares (30 TFLOPS request, 8 GiB VRAM per GPU) reach the simulated pods
    assert "requested TFLOPS 90/2496, VRAM 24/640 GiB" in _step(out, "08")
    assert "plan does not simulate" not in out


def test_an_llm_inference_service_with_prefill_runs_both_workloads(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _plan(capsys, "llmisvc-prefill", CASES / "llmisvc-prefill" / "input.yaml")
    assert out == (CASES / "llmisvc-prefill" / "expected.txt").read_text()
    assert "pods: 0 TensorFusion, 5 device plugin" in out.split("\nstart ")[1]  # 2 + 3
    assert ("rolls 2 workloads: LLMInferenceService/llm/qwen2-7b-pd/pod, "
            "LLMInferenceService/llm/qwen2-7b-pd/prefill") in _step(out, "01")
    assert "requested TFLOPS 150/2496" in _step(out, "08")  # 5 pods × 30
    assert "plan does not simulate" not in out


def test_a_component_rolls_by_its_deployment_strategy() -> None:
    docs = read_documents((str(CASES / "kserve-isvc-min-replicas" / "input.yaml"),))
    units = units_of(docs, Registry(), "default", 2)
    by_key = {u.key: u for u in units}
    predictor = by_key["InferenceService/ml/llama-8b/predictor"]
    assert (predictor.replicas, predictor.strategy) == (3, Strategy(StrategyType.ROLLING, 1, 0))
    assert predictor.path == ("spec", "predictor")
    # the transformer has no GPU, but it is a pod of its own (the plan skips it: no GPU)
    assert by_key["InferenceService/ml/llama-8b/transformer"].replicas == 1


REFUSED = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: multi-node, namespace: ml}
spec:
  predictor:
    model:
      resources:
        limits: {nvidia.com/gpu: "1"}
    workerSpec:
      containers:
        - name: worker
          resources:
            limits: {nvidia.com/gpu: "1"}
"""


def test_a_shape_the_engine_refuses_is_left_out_and_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "refused.yaml"
    manifest.write_text(REFUSED)
    assert units_of(read_documents((str(manifest),)), Registry(), "default", 2) == []
    out = _plan(capsys, "kserve-isvc-min-replicas", manifest)
    start = out.split("\nstart ")[1].split("\n\n")[0]
    assert "pods: 0 TensorFusion, 0 device plugin" in start
    assert ("warning: InferenceService/ml/multi-node: not simulated: spec.predictor.workerSpec: "
            "the predictor's labels and annotations reach its worker pods too") in start


KATIB = """\
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: tune, namespace: ml}
spec:
  trialTemplate:
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            containers:
              - name: train
                resources:
                  limits: {nvidia.com/gpu: "1"}
"""


def test_a_kind_whose_pods_are_not_counted_is_said_at_the_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "katib.yaml"
    manifest.write_text(KATIB)
    out = _plan(capsys, "kserve-isvc-min-replicas", manifest)
    start = out.split("\nstart ")[1].split("\n\n")[0]
    assert ("warning: Experiment/ml/tune: not simulated: plan and admission do not count this "
            "kind's pods (Katib runs parallelTrialCount trials") in start


def test_too_many_pods_points_at_the_component_min_replicas(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "huge.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
                        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\n"
                        "metadata: {name: huge}\nspec:\n  predictor:\n    minReplicas: 200000\n"
                        "    model:\n      resources:\n        limits: {nvidia.com/gpu: '1'}\n")
    code = main(["plan", "-p", "takeover", "--inventory",
                 str(CASES / "kserve-isvc-min-replicas" / "inventory.yaml"), str(manifest)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"{manifest}:10:18: error: InferenceService/default/huge: the plan "
                          "simulates every GPU pod one by one")
