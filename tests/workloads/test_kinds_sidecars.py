"""Containers a controller adds to a whole template's pods (KubeRay's autoscaler on a head
pod with in-tree autoscaling) count toward the pod's containers: rightsize names the GPU
container in inject-container there, and the webhook simulation sees the second container.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.workloads import Registry

CASE = ROOT / "tests" / "cases" / "rightsize" / "kind-raycluster-autoscaler-head"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out + err


def _head(enable: str) -> dict[str, object]:
    head = {"template": {"spec": {"containers": [{"name": "ray-head"}]}}}
    spec: dict[str, object] = {"headGroupSpec": head, "workerGroupSpecs": []}
    if enable:
        spec["enableInTreeAutoscaling"] = {"true": True, "false": False, "'true'": "true"}[enable]
    return spec


@pytest.mark.parametrize(("enable", "names"), [
    ("true", ["ray-head", "autoscaler"]), ("false", ["ray-head"]), ("", ["ray-head"]),
    ("'true'", ["ray-head"]),  # a string is not the boolean the field is
])
def test_the_head_pod_holds_the_autoscaler_only_with_in_tree_autoscaling(
        enable: str, names: list[str]) -> None:
    obj = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "spec": _head(enable)}
    head = Registry().views(obj)[0]
    assert [c["name"] for c in head.template["spec"]["containers"]] == names
    assert obj["spec"]["headGroupSpec"]["template"]["spec"]["containers"] == [  # type: ignore[index]
        {"name": "ray-head"}]  # the document itself is left as it is


@pytest.mark.parametrize(("api", "kind", "cluster"), [
    ("ray.io/v1", "RayJob", ("spec", "rayClusterSpec")),
    ("ray.io/v1", "RayService", ("spec", "rayClusterConfig")),
    ("orchestration.aibrix.ai/v1alpha1", "RayClusterFleet", ("spec", "template", "spec")),
])
def test_every_kind_with_a_ray_cluster_spec_adds_it(api: str, kind: str,
                                                    cluster: tuple[str, ...]) -> None:
    obj: dict[str, object] = {"apiVersion": api, "kind": kind}
    node = obj
    for key in cluster[:-1]:
        node = node.setdefault(key, {})  # type: ignore[assignment]
    node[cluster[-1]] = _head("true")
    names = [c["name"] for c in Registry().views(obj)[0].template["spec"]["containers"]]
    assert names == ["ray-head", "autoscaler"]


def test_the_webhook_refuses_the_head_without_inject_container(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rightsized = (CASE / "expected.yaml").read_text()
    assert "inject-container: ray-head" in rightsized
    code, said = _run(["admission", str(CASE / "expected.yaml")], capsys)
    assert code == 0 and "rejected:" not in said and "0 rejected" in said
    bare = tmp_path / "bare.yaml"
    bare.write_text("".join(line for line in rightsized.splitlines(keepends=True)
                            if "inject-container: ray-head" not in line))
    _, said = _run(["admission", str(bare)], capsys)
    assert "inject container has to be specified when Pod containers > 1" in said
