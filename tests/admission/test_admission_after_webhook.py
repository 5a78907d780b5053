"""What happens after the webhook to a pod it takes over (docs/kinds.md): bound to a node by
``spec.nodeName``, no scheduler places it, TensorFusion's neither, so its GPUs are never
allocated and the pod never starts; holding DRA claims, it keeps their devices beside the
GPUs TensorFusion gives it. The simulation notes both; ``check`` warns of both on a
TensorFusion template (``webhook-node-name``, ``webhook-dra-claims``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfpolicy.admission import AdmissionContext, Decision, admit, webhook_traps
from tfpolicy.cli import main


def _template(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": {"tensor-fusion.ai/enabled": "true"},
                         "annotations": {"tensor-fusion.ai/isolation": "shared"}},
            "spec": {"containers": [{"name": "main", "image": "x",
                                     "resources": {"limits": {"nvidia.com/gpu": 1}}}], **spec}}


@pytest.mark.parametrize(("spec", "note"), [
    ({"nodeName": "n1"}, "the pod never starts"),
    ({"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}]},
     "keeps its spec.resourceClaims"),
])
def test_the_simulation_notes_what_follows_the_webhook(spec: dict[str, Any], note: str) -> None:
    admission = admit(_template(**spec), AdmissionContext("ml", "app", owner_kind="Deployment"))
    assert admission.decision is Decision.TENSOR_FUSION
    assert any(note in n for n in admission.notes)
    plain = admit(_template(), AdmissionContext("ml", "app", owner_kind="Deployment"))
    assert not any(note in n for n in plain.notes)


def test_the_traps_name_the_field() -> None:
    found = {(t.rule, t.path) for t in webhook_traps(
        _template(nodeName="n1", resourceClaims=[{"name": "g", "resourceClaimName": "c"}]),
        "Deployment")}
    assert {("node-name", "spec.nodeName"), ("dra-claims", "spec.resourceClaims")} <= found
    assert not {t.rule for t in webhook_traps(_template(), "Deployment")} & {
        "node-name", "dra-claims"}


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata:
      labels: {app: a}
    spec:
      containers:
        - name: main
          image: x
          resources:
            limits: {nvidia.com/gpu: 1}
            claims: [{name: gpu}]
      resourceClaims:
        - {name: gpu, resourceClaimTemplateName: more-gpus}
"""


def test_check_warns_of_the_claims_a_pod_it_takes_over_keeps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(DEPLOYMENT)
    main(["check", "-p", "takeover", "--format", "json", str(path)])
    rules = {(f["tags"]["rule"], f["field"]["path"]) for f in json.loads(capsys.readouterr()[0])}
    assert ("webhook-dra-claims", "spec.resourceClaims") in rules  # the template's field
    assert ("gpu-dra-claim-missing", "spec.template.spec.resourceClaims[0]") in rules
