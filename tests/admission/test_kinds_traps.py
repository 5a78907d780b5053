"""``check`` finds the webhook's traps in pods whose labels and containers live apart.

A KServe predictor carries its pod's labels itself and its GPU in
``predictor.model``: a hand-written ``tensor-fusion.ai/enabled`` there, with no
isolation, is the same soft-isolation trap as on a Deployment's template.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.admission.test_admission_cli import ONLY_OTHER
from tfpolicy.cli import main

PREDICTOR_TRAP = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llama, namespace: ml}
spec:
  predictor:
    labels: {tensor-fusion.ai/enabled: "true"}
    model:
      modelFormat: {name: huggingface}
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_check_reports_a_trap_on_a_kserve_predictor(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "isvc.yaml"
    manifest.write_text(PREDICTOR_TRAP)
    policy = tmp_path / "policy.yaml"
    policy.write_text(ONLY_OTHER)
    main(["check", "-p", str(policy), str(manifest)])
    out = capsys.readouterr().out
    assert f"{manifest}:5:" in out and "InferenceService/ml/llama" in out
    assert "(webhook-soft-no-vram)" in out
