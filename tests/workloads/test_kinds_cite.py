"""The controllers' own rules, as their source says (tfpolicy/workloads/kinds.py cites it):
the names they give containers, and how many pods they run per template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.workloads import Registry


def _names(obj: dict[str, Any]) -> list[list[str]]:
    return [[c["name"] for c in v.template["spec"]["containers"]] for v in Registry().views(obj)]


def _paths(obj: dict[str, Any]) -> list[int]:
    """How many of each view's containers have a field of their own."""
    return [len(v.containers) for v in Registry().views(obj)]


def _knative(containers: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "serving.knative.dev/v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"template": {"spec": {"containers": containers, **spec}}}}


def test_knative_names_a_lone_unnamed_container_user_container() -> None:
    assert _names(_knative([{"image": "a"}])) == [["user-container", "queue-proxy"]]


def test_knative_numbers_unnamed_containers_past_the_names_in_use() -> None:
    obj = _knative([{"name": "user-container-0"}, {"image": "a"}, {"image": "b"}],
                   initContainers=[{"name": "user-container-1"}])
    assert _names(obj) == [["user-container-0", "user-container-2", "user-container-3",
                            "queue-proxy"]]
    assert _paths(obj) == [3]  # Knative's own queue-proxy is in the pod, not the manifest


def _argo(template: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
            "metadata": {"generateName": "w-"}, "spec": {"templates": [template]}}


def test_argo_runs_a_container_template_as_main_whatever_its_name() -> None:
    obj = _argo({"name": "t", "container": {"name": "trainer"}, "sidecars": [{"name": "log"}]})
    assert _names(obj) == [["main", "log", "wait"]]
    assert _paths(obj) == [2]


def test_argo_container_set_keeps_names_and_calls_an_unnamed_one_main() -> None:
    obj = _argo({"name": "t", "containerSet": {"containers": [{"name": "a"}, {"image": "b"}]}})
    assert _names(obj) == [["a", "main", "wait"]]


def _isvc(**components: Any) -> dict[str, Any]:
    return {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "m"}, "spec": components}


def test_kserve_renames_a_lone_custom_predictor_container() -> None:
    obj = _isvc(predictor={"containers": [{"name": "torchserve-container"}]})
    assert _names(obj) == [["kserve-container", "queue-proxy"]]


def test_kserve_keeps_named_custom_containers_beside_others() -> None:
    obj = _isvc(predictor={"containers": [{"name": "server"}, {"name": "agent"}]})
    assert _names(obj) == [["server", "agent", "queue-proxy"]]


def test_kserve_renames_a_transformers_first_container_always() -> None:
    obj = _isvc(transformer={"containers": [{"name": "t"}, {"name": "agent"}]})
    assert _names(obj) == [["kserve-container", "agent", "queue-proxy"]]


def test_kserve_framework_key_is_kserve_container_and_containers_stay() -> None:
    obj = _isvc(predictor={"sklearn": {"name": "mine"}, "containers": [{"name": "side"}]})
    assert _names(obj) == [["side", "kserve-container", "queue-proxy"]]


def _admission(capsys: pytest.CaptureFixture[str], file: Path) -> list[dict[str, Any]]:
    capsys.readouterr()
    code = main(["admission", "--format", "json", str(file)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    workloads: list[dict[str, Any]] = json.loads(out)["workloads"]
    return workloads


def test_aibrix_roles_run_replicas_times_pod_group_size(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # a real file: replicas 1, roles of replicas 1 × podGroupSize 2
    found = _admission(capsys, Path("tests/realworld/aibrix-stormservice-podgroup.yaml"))
    assert {w["template"]: w["replicas"] for w in found} == {
        "roles-0": 1, "roles-1": 2, "roles-2": 2}


def test_mpijob_v1alpha1_template_is_refused_but_its_pods_counted(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    file = "tests/realworld/mpijob-v1alpha1-template.yaml"
    code = main(["apply", "-p", "takeover", file])
    out, err = capsys.readouterr()
    assert code == 0 and out == (ROOT / file).read_text()
    assert "not migrated: MPIJob v1alpha1 spec.template: the operator builds the launcher" in err
    assert [w["replicas"] for w in _admission(capsys, Path(file))] == [4]


def test_seldon_server_pods_are_its_replicas(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    file = Path("tests/cases/takeover/kind-seldon-server/input.yaml")
    assert [w["replicas"] for w in _admission(capsys, file)] == [2]


def test_seldon_server_pod_has_the_server_config_containers_too() -> None:
    obj = {"apiVersion": "mlops.seldon.io/v1alpha1", "kind": "Server",
           "metadata": {"name": "s"}, "spec": {"podSpec": {"containers": [{"name": "triton"}]}}}
    assert _names(obj) == [["triton", "rclone", "agent"]]


def test_kuberay_worker_groups_run_replicas_times_hosts(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    file = tmp_path / "ray.yaml"
    file.write_text("""apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: r
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - name: ray-head
          resources: {limits: {nvidia.com/gpu: 1}}
  workerGroupSpecs:
  - groupName: gpu
    replicas: 3
    numOfHosts: 2
    template:
      spec:
        containers:
        - name: ray-worker
          resources: {limits: {nvidia.com/gpu: 1}}
""")
    found = _admission(capsys, file)
    assert {w["template"]: w["replicas"] for w in found} == {
        "headGroupSpec": 1, "workerGroupSpecs-0": 6}


def test_lws_without_a_leader_template_runs_size_workers_per_group(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    file = tmp_path / "lws.yaml"
    file.write_text("""apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 4
    workerTemplate:
      spec:
        containers:
        - name: vllm
          resources: {limits: {nvidia.com/gpu: 1}}
""")
    assert [w["replicas"] for w in _admission(capsys, file)] == [8]
