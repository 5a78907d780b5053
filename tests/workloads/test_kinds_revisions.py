"""enabled-replicas bites wherever the pods carry ``pod-template-hash``: the kinds that run
as a Deployment (Knative revisions, KServe components, a one-node LLMInferenceService), not
only a Deployment itself. The stage warns only where it does not bite, and admission counts
the cap on the same rule (``tfpolicy.workloads.revisions``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.admission.config import AdmissionContext
from tfpolicy.cli import main

CASES = ROOT / "tests" / "cases" / "takeover"
RUN_AS_DEPLOYMENTS = ["kind-knative-service", "kind-kserve-isvc-framework",
                      "kind-llmisvc-single"]
NOT_ENFORCED = "is written but not enforced"


def _findings(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    main(["apply", "-p", "takeover-1", str(path)])
    return capsys.readouterr().err


@pytest.mark.parametrize("case", RUN_AS_DEPLOYMENTS)
def test_a_kind_that_runs_as_a_deployment_is_not_warned_about(
        case: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _findings(CASES / case / "input.yaml", capsys)
    assert NOT_ENFORCED not in err, err


def test_a_statefulset_is_moved_whole_not_capped(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sts.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, namespace: ml}\n"
        "spec:\n  replicas: 4\n  template:\n    spec:\n      containers:\n"
        "        - name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n")
    err = _findings(path, capsys)
    assert NOT_ENFORCED not in err and "migrated whole at this rung" in err, err


@pytest.mark.parametrize(("kind", "counted"), [
    ("Deployment", True), ("InferenceService", True), ("LLMInferenceService", True),
    ("Service", True), ("Configuration", True), ("StatefulSet", False), ("Rollout", False),
    ("Job", False),
])
def test_admission_counts_the_cap_on_the_same_rule(kind: str, counted: bool) -> None:
    ctx = AdmissionContext("ml", "w", owner_kind=kind)
    assert ctx.counts_replicas({}) is counted
    assert ctx.counts_replicas({"pod-template-hash": "abc"}) is True
