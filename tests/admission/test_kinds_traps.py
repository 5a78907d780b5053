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


SPEC_NOT_A_MAP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: w, namespace: ml}
spec:
  template:
    metadata:
      labels: {app: w, tensor-fusion.ai/enabled: "true"}
    spec:
{spec}
"""


@pytest.mark.parametrize("spec", [
    "    - containers:\n      - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}",
    "      nvidia.com/gpu",
])
@pytest.mark.parametrize("policy", ["takeover", "rightsize-example"])
def test_a_template_whose_spec_is_no_map_is_reported_as_apply_does(
        tmp_path: Path, spec: str, policy: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The trap scan read the containers of a spec that is a list or a scalar (exit 3)."""
    manifest = tmp_path / "d.yaml"
    manifest.write_text(SPEC_NOT_A_MAP.replace("{spec}", spec))
    applied = main(["apply", "-p", policy, str(manifest)])
    wanted = capsys.readouterr().err
    checked = main(["check", "-p", policy, str(manifest)])
    out = capsys.readouterr()
    assert checked == applied, out
    assert "internal error" not in out.err
    assert all(line in out.out + out.err for line in wanted.splitlines() if "d.yaml:" in line)
