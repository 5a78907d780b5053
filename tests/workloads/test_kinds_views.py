"""The pod-template view of a pod whose parts live apart, and the way back (workloads.views)."""

from __future__ import annotations

from typing import Any

from tfpolicy.edits import Edit, Op
from tfpolicy.workloads import Registry
from tfpolicy.workloads.views import real_edits


def _isvc(**predictor: Any) -> dict[str, Any]:
    return {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "m"}, "spec": {"predictor": predictor}}


def test_a_kserve_component_reads_as_one_pod_template() -> None:
    obj = _isvc(labels={"a": "b"}, nodeSelector={"gpu": "t4"}, minReplicas=2,
                pytorch={"resources": {"limits": {"nvidia.com/gpu": 1}}},
                containers=[{"name": "side"}])
    [view] = Registry().views(obj)
    assert view.path == ("spec", "predictor")
    assert view.template["metadata"] == {"labels": {"a": "b"}}
    containers = view.template["spec"]["containers"]
    assert [c["name"] for c in containers] == ["side", "kserve-container", "queue-proxy"]
    assert view.template["spec"]["nodeSelector"] == {"gpu": "t4"}
    assert "pytorch" not in view.template["spec"] and "labels" not in view.template["spec"]


def test_edits_go_back_to_the_fields_the_controller_reads() -> None:
    obj = _isvc(pytorch={"resources": {"limits": {"nvidia.com/gpu": 1}}})
    [view] = Registry().views(obj)
    edits = [Edit(Op.SET, ("metadata", "annotations"), {"k": "v"}),
             Edit(Op.REMOVE, ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))]
    assert real_edits(view, edits) == [
        Edit(Op.SET, ("spec", "predictor", "annotations"), {"k": "v"}),
        Edit(Op.REMOVE, ("spec", "predictor", "pytorch", "resources", "limits",
                         "nvidia.com/gpu"))]


def test_an_edit_with_no_real_place_is_refused_not_guessed() -> None:
    obj = _isvc(pytorch={"resources": {}})
    [view] = Registry().views(obj)
    assert real_edits(view, [Edit(Op.SET, ("spec", "containers"), [])]) is None
    assert real_edits(view, [Edit(Op.SET, ("spec", "containers", 5, "name"), "x")]) is None


def test_a_whole_metadata_set_becomes_one_edit_per_map() -> None:
    obj = _isvc(pytorch={})
    [view] = Registry().views(obj)
    edits = real_edits(view, [Edit(Op.SET, ("metadata",), {"labels": {"x": "y"}})])
    assert edits == [Edit(Op.SET, ("spec", "predictor", "labels"), {"x": "y"})]


def test_shared_labels_refuse_the_pod_and_still_see_its_gpus() -> None:
    obj = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
           "spec": {"template": {"containers": [{"name": "main"}]},
                    "worker": {"containers": [{"name": "main", "resources": {
                        "limits": {"nvidia.com/gpu": 1}}}]}}}
    [view] = Registry().views(obj)
    assert view.refused.startswith("spec.worker:")
    assert len(view.template["spec"]["containers"]) == 2


def test_a_katib_trial_is_read_by_its_own_kind() -> None:
    trial = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": {}}}}
    obj = {"apiVersion": "kubeflow.org/v1beta1", "kind": "Experiment",
           "spec": {"trialTemplate": {"trialSpec": trial}}}
    [view] = Registry().views(obj)
    assert view.path == ("spec", "trialTemplate", "trialSpec", "spec", "template")
    assert view.real(("metadata", "labels")) == (*view.path, "metadata", "labels")
