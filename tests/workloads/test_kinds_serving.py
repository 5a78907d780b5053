"""The serving kinds whose operators build the pod from fields of their own (Dynamo, NIM, OME,
kthena's ModelBooster), through the real CLI.

Every GPU request tfpolicy's own walk (:mod:`tfpolicy.workloads.finder`, shorthands
included) finds in their golden cases is migrated (a pod view of the output above it is
labelled enabled) or reported (a finding at it or above it): the finder and the rewrite
agree. Then what each kind's rule means: a Dynamo service's ``resources.limits.gpu`` is
removed by rightsize and counted into ``gpu-count``, named by its ``gpuType``, refused where
the operator reads it again; a NIMService naming no GPU is warned about where it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main
from tfpolicy.edits import format_path
from tfpolicy.gpus import vendors
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.workloads import Registry, replicas_of
from tfpolicy.workloads.finder import find_requests, shorthands

CASES = sorted(p for name in ("kind-dynamo", "kind-dynamo-v1beta1", "kind-ome-runtimes",
                              "kind-reported-serving", "kind-kthena", "kind-nim-profile-gpus")
               for p in (ROOT / "tests" / "cases").glob(f"*/{name}")
               if (p / "input.yaml").is_file())
ENABLED = "tensor-fusion.ai/enabled"
Run = tuple[int, str, list[dict[str, Any]]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(ROOT)

    def call(*args: str) -> Run:
        capsys.readouterr()
        code = main(["apply", "--format", "json", *args])
        out, err = capsys.readouterr()
        return code, out, json.loads(err) if err.strip() else []
    return call


def _policy(case: Path) -> list[str]:
    named = case / "policy.txt"
    return ["-p", named.read_text().strip() if named.is_file() else str(case / "policy.yaml")]


def _requests(obj: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    gpus = GpuResources()

    def is_gpu(name: str) -> bool:
        return name in gpus or vendors.accelerator(name) is not None

    for request in find_requests(obj, is_gpu, shorthands(obj)):
        yield request.path


def _migrated(after: dict[str, Any], path: tuple[Any, ...]) -> bool:
    for view in Registry().views(after):
        labels = (view.template.get("metadata") or {}).get("labels") or {}
        if path[:len(view.path)] == view.path and labels.get(ENABLED) == "true":
            return True
    return False


def _reported(findings: list[dict[str, Any]], obj: dict[str, Any], path: tuple[Any, ...]) -> bool:
    name = obj["metadata"]["name"]
    for finding in findings:
        ref, field = finding["resourceRef"], finding["field"]["path"]
        if ref["kind"] != obj["kind"] or ref["name"] != name:
            continue
        if any(format_path(path[:n]) == field for n in range(1, len(path) + 1)):
            return True
    return False


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_finder_and_the_rewrite_agree(case: Path, run: Any) -> None:
    code, out, findings = run(*_policy(case), str(case / "input.yaml"))
    assert code == 0
    before = [d for d in yaml.safe_load_all((case / "input.yaml").read_text()) if d]
    after = [d for d in yaml.safe_load_all(out) if d]
    assert len(before) == len(after)
    seen, silent = 0, []
    for old, new in zip(before, after, strict=True):
        for path in _requests(old):
            seen += 1
            if not (_migrated(new, path) or _reported(findings, old, path)):
                silent.append(f"{old['kind']}/{old['metadata']['name']} {format_path(path)}")
    assert seen and not silent, silent


_SERVICE = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {{name: agg, namespace: serving}}
spec:
  services:
    Frontend:
      componentType: frontend
    Worker:
      componentType: worker
      replicas: 3
      resources:
        limits:
{limits}
      extraPodSpec:
        mainContainer:
          image: vllm-runtime:0.4.0
{extra}"""


def _rightsize(tmp_path: Path) -> str:
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump({
        "apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MigrationPolicy",
        "metadata": {"name": "share"},
        "spec": {"stage": "rightsize", "resources": {"vram": {"request": "8Gi",
                                                                "limit": "16Gi"}}}}))
    return str(policy)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    return str(path)


def test_rightsize_takes_the_gpu_count_off_the_service_and_rollback_puts_it_back(
        tmp_path: Path, run: Any) -> None:
    text = _SERVICE.format(limits='          cpu: "8"\n          gpu: "2"', extra="")
    code, out, findings = run("-p", _rightsize(tmp_path), _write(tmp_path, text))
    assert code == 0 and not findings
    worker = yaml.safe_load(out)["spec"]["services"]["Worker"]
    assert worker["resources"] == {"limits": {"cpu": "8"}}
    meta = worker["extraPodMetadata"]
    assert meta["labels"][ENABLED] == "true"
    assert meta["annotations"]["tensor-fusion.ai/gpu-count"] == "2"
    record = json.loads(meta["annotations"]["tfpolicy.dev/original"])
    assert record["resources"] == {"main": {"limits": {"nvidia.com/gpu": "2"}}}
    (tmp_path / "out.yaml").write_text(out)
    code, back, _ = run("-p", "rollback", str(tmp_path / "out.yaml"))
    assert code == 0 and back == text


def test_takeover_keeps_the_count_and_labels_the_pods(tmp_path: Path, run: Any) -> None:
    text = _SERVICE.format(limits='          gpu: "1"', extra="")
    code, out, findings = run("-p", "takeover", _write(tmp_path, text))
    assert code == 0 and not findings
    services = yaml.safe_load(out)["spec"]["services"]
    assert services["Worker"]["resources"] == {"limits": {"gpu": "1"}}
    assert services["Worker"]["extraPodMetadata"]["labels"][ENABLED] == "true"
    assert "extraPodMetadata" not in services["Frontend"]  # it asks for no GPU


def test_gpu_type_names_the_resource_the_count_becomes(tmp_path: Path, run: Any) -> None:
    text = _SERVICE.format(limits='          gpu: "1"\n          gpuType: amd.com/gpu', extra="")
    path = _write(tmp_path, text)
    code, out, findings = run("-p", "takeover", path)
    assert code == 0 and out == text
    assert [(f["tags"]["rule"], f["field"]["path"]) for f in findings] == [
        ("gpu-vendor-not-configured", "spec.services.Worker.resources.limits.gpu")]
    assert "amd.com/gpu" in findings[0]["message"]


@pytest.mark.parametrize("extra,word", [
    ("      multinode: {nodeCount: 2}\n", "multinode"),
    ("      gpuMemoryService: {enabled: true}\n", "gpuMemoryService"),
    ("      extraPodSpec:\n        mainContainer:\n          resources:\n"
     "            limits: {nvidia.com/gpu: 1}\n", "mainContainer"),
])
def test_a_service_whose_count_is_read_again_is_refused(tmp_path: Path, run: Any,
                                                         extra: str, word: str) -> None:
    text = _SERVICE.format(limits='          gpu: "4"', extra="")
    if word == "mainContainer":
        text = text.replace("      extraPodSpec:\n        mainContainer:\n"
                            "          image: vllm-runtime:0.4.0\n", extra)
    else:
        text = text.replace("      resources:", extra + "      resources:")
    for policy in ("takeover", _rightsize(tmp_path)):
        code, out, findings = run("-p", policy, _write(tmp_path, text))
        assert code == 0 and out == text
        assert [(f["tags"]["rule"], f["field"]["path"]) for f in findings] == [
            ("kind-not-migrated", "spec.services.Worker")]
        assert word in findings[0]["message"]


def test_pods_of_a_service_are_its_replicas_times_its_nodes() -> None:
    obj = yaml.safe_load(_SERVICE.format(limits='          gpu: "1"', extra=""))
    obj["spec"]["services"]["Worker"]["multinode"] = {"nodeCount": 2}
    counts = {v.path[-1]: replicas_of(obj, v.path) for v in Registry().views(obj)}
    assert counts == {"Frontend": 1, "Worker": 6}
    beta = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "spec": {"components": [{"replicas": 3, "multinode": {"nodeCount": 2},
                                     "podTemplate": {"spec": {"containers": []}}},
                                    {"componentName": "no-template"}]}}
    views = Registry().views(beta)
    assert [v.path for v in views] == [("spec", "components", 0, "podTemplate")]
    assert replicas_of(beta, views[0].path) == 6


_NIM = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {{name: llm, namespace: nim}}
spec:
  image: {{repository: nvcr.io/nim/meta/llama3-8b-instruct, tag: 1.0.3}}
{extra}"""


@pytest.mark.parametrize("extra,warned", [
    ("", True),
    ("  resources:\n    limits: {memory: 32Gi}\n", True),
    ("  resources:\n    requests: {nvidia.com/gpu: 1}\n", False),
    ("  draResources:\n    - resourceClaimName: gpu\n", False),
])
def test_a_nimservice_naming_no_gpu_is_warned_where_it_is(tmp_path: Path, run: Any,
                                                          extra: str, warned: bool) -> None:
    text = _NIM.format(extra=extra)
    code, out, findings = run("-p", "takeover", _write(tmp_path, text))
    assert code == 0 and out == text
    profile = [f for f in findings if "names no nvidia.com/gpu" in f["message"]]
    assert [(f["severity"], f["field"]["path"], f["tags"]["line"]) for f in profile] == (
        [("warning", "spec", "4")] if warned else [])
