"""How many pods each kind runs, as ``tfpolicy admission`` reports it (the plan's count too),
and placeholder GPU counts refused by the simulation (issue 14 §3)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.workloads import NotCounted, ReplicasError, replicas_of

CASES = ROOT / "tests" / "cases" / "takeover"
LWS = ROOT / "tests" / "cases" / "takeover" / "leaderworkerset" / "input.yaml"


def _admission(capsys: pytest.CaptureFixture[str], *files: Path) -> list[dict[str, Any]]:
    capsys.readouterr()
    code = main(["admission", "--format", "json", *map(str, files)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    workloads: list[dict[str, Any]] = json.loads(out)["workloads"]
    return workloads


@pytest.mark.parametrize(("case", "expected"), [
    ("kind-jobset", {"": 8}),  # replicas 2 × parallelism 4
    ("kind-kserve-isvc-framework", {"": 2}),  # predictor.minReplicas
    ("kind-kserve-isvc-kubeflow-group", {"": 1}),  # minReplicas defaults to 1
    ("kind-llmisvc-single", {"": 3}),  # spec.replicas
    ("kind-llmisvc-v1alpha1-prefill", {"pod": 1, "prefill": 2}),
    ("kind-llmisvc-config", {"": 0}),  # a base configuration runs no pod itself
    ("kind-trainer-cluster-runtime", {"": 0}),  # nor does a runtime
    ("kind-aibrix-stormservice", {"roles-0": 2, "roles-1": 1}),  # 1 set × role replicas
    ("kind-aibrix-rayclusterfleet", {"headGroupSpec": 2, "workerGroupSpecs-0": 2}),
    ("kind-volcano-job", {"tasks-1": 2}),  # the master task asks for no GPU
    ("kind-hyperpod-pytorchjob", {"": 2}),
    ("kind-mpijob-v1alpha1", {"": 4}),
    ("kind-katib-experiment", {"": None}),  # not counted: said so, never guessed
    ("kind-knative-service", {"": None}),
    # a roleTemplates entry runs its roles' pods (2 + 3); a leader-worker role replicas × size;
    # a v1alpha1 role with a leaderWorkerSet likewise (1 × 2)
    ("kind-rolebasedgroup", {"leaderWorkerPattern": 8, "roleTemplates-0": 5, "": 2}),
    ("kind-kthena", {"entryTemplate": 2, "workerTemplate": 6}),  # 2 groups × (1 | 3 workers)
    # 2 gangs × clique replicas, × the scaling group's 2 for the clique it names (the
    # frontend asks for no GPU)
    ("kind-grove-podcliqueset", {"cliques-1": 6, "cliques-2": 8}),
    ("kind-llmaz-service", {"leaderTemplate": 2, "workerTemplate": 4}),  # 2 groups of 3
])
def test_pods_per_kind(case: str, expected: dict[str, int | None],
                       capsys: pytest.CaptureFixture[str]) -> None:
    found = _admission(capsys, CASES / case / "input.yaml")
    gpu = [w for w in found if w["decision"] != "untouched" or w["reason"] != "not a GPU pod"]
    counts = {w["template"]: w["replicas"] for w in gpu}
    if list(expected) == [""] and len(counts) == 1:
        counts = {"": next(iter(counts.values()))}
    assert counts == expected


def test_leaderworkerset_counts_groups_times_size(capsys: pytest.CaptureFixture[str]) -> None:
    found = _admission(capsys, LWS)
    assert {w["template"]: w["replicas"] for w in found} == {
        "leaderTemplate": 1, "workerTemplate": 1}  # 1 group of size 2: a leader, a worker


def test_leaderworkerset_workers_are_size_minus_one() -> None:
    obj = {"kind": "LeaderWorkerSet", "spec": {"replicas": 3, "leaderWorkerTemplate": {
        "size": 4, "leaderTemplate": {}, "workerTemplate": {}}}}
    base = ("spec", "leaderWorkerTemplate")
    assert replicas_of(obj, (*base, "leaderTemplate")) == 3
    assert replicas_of(obj, (*base, "workerTemplate")) == 9


def test_a_bad_count_in_any_factor_is_refused_at_its_path() -> None:
    obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
           "spec": {"replicatedJobs": [{"replicas": 2, "template": {"spec": {
               "parallelism": "many", "template": {}}}}]}}
    with pytest.raises(ReplicasError) as caught:
        replicas_of(obj, ("spec", "replicatedJobs", 0, "template", "spec", "template"))
    assert caught.value.path == ("spec", "replicatedJobs", 0, "template", "spec", "parallelism")


def test_an_uncounted_kind_says_why() -> None:
    obj = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "w"}}
    with pytest.raises(NotCounted, match="Argo workflow"):
        replicas_of(obj, ("spec", "templates", 0))


PLACEHOLDER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      containers:
        - name: main
          image: example/train:1
          resources:
            limits:
              nvidia.com/gpu: $GPU_PER_NODE
"""


@pytest.mark.parametrize("text", [
    PLACEHOLDER,
    PLACEHOLDER.replace("$GPU_PER_NODE", "'{{ .Values.gpus }}'"),
    # the same in a pod whose parts live apart
    "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: trainer\n"
    "spec:\n  predictor:\n    model:\n      resources:\n        limits:\n"
    "          nvidia.com/gpu: ${GPUS}\n",
])
def test_admission_refuses_a_placeholder_gpu_count(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(text)
    code = main(["admission", str(manifest)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert re.match(rf"{re.escape(str(manifest))}:[0-9]+:[0-9]+: error: ", err)  # located
    assert "is a placeholder, not a quantity: render the manifest first" in err
    assert "limits[nvidia.com/gpu]" in err and len(err.splitlines()) == 1


def test_plan_refuses_a_placeholder_gpu_count(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(PLACEHOLDER)
    inventory = ROOT / "tests" / "cases" / "plan-rollout" / "statefulset-partition" / "inventory.yaml"
    code = main(["plan", "-p", "takeover", "--inventory", str(inventory), str(manifest)])
    _, err = capsys.readouterr()
    assert code == 2, err
    assert "'$GPU_PER_NODE' is a placeholder, not a quantity: render the manifest first" in err
