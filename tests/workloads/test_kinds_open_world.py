"""No silent pass in the open world (docs/kinds.md, the open vendor rule), as a property
through the real ``tfpolicy apply``: any resource name under a known accelerator vendor's
domain, its name in any case, asked by a container or an init container of any known or
unknown kind, is migrated or named on stderr at its document.

The vendor domains are written here, from the vendors' device plugins and the schedulers
that share them (HAMi's and Koordinator's device lists), not read from tfpolicy. A domain
is drawn in lower case, as Kubernetes requires of a resource name's prefix (a DNS-1123
subdomain); an upper-case one is a name the API server refuses, said as an error when its
document is read (the last test). Each example is a stream of several documents, so that
one run of the command checks many.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfpolicy.cli import main

DOMAINS = (
    "nvidia.com", "amd.com", "gpu.intel.com", "npu.intel.com", "habana.ai", "huawei.com",
    "cambricon.com", "hygon.com", "dcu.com", "metax-tech.com", "iluvatar.ai", "enflame.com",
    "mthreads.com", "kunlunxin.com", "vastaitech.com", "birentech.com", "volcano.sh",
    "hami.io", "koordinator.sh", "aliyun.com", "tencent.com",
)
# Where a domain also names other devices, the names of its accelerators start so.
PREFIXES = {"koordinator.sh": "gpu", "aliyun.com": "gpu", "tencent.com": "vcuda",
            "volcano.sh": "vgpu", "hami.io": "gpu"}
_NAME = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,20}[a-z0-9])?", fullmatch=True)


@st.composite
def _resource(draw: Any) -> str:
    domain = draw(st.sampled_from(DOMAINS))
    rest = PREFIXES.get(domain, "") + draw(_NAME)
    cased = "".join(c.upper() if draw(st.booleans()) else c for c in rest)
    return f"{domain}/{cased}"


def _container(name: str, value: int) -> dict[str, Any]:
    return {"name": "c", "image": "x", "resources": {"limits": {name: value}}}


def _pod_spec(name: str, value: int, init: bool) -> dict[str, Any]:
    main_container = {"name": "main", "image": "x"}
    if init:
        return {"initContainers": [_container(name, value)], "containers": [main_container]}
    return {"containers": [_container(name, value)]}


def _template(name: str, value: int, init: bool) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "a"}}, "spec": _pod_spec(name, value, init)}


# Known kinds and one the registry does not know, each placing a pod template its own way.
KINDS = {
    "Deployment": lambda t: {"apiVersion": "apps/v1", "kind": "Deployment",
                             "spec": {"template": t}},
    "Job": lambda t: {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": t}},
    "Pod": lambda t: {"apiVersion": "v1", "kind": "Pod", **t},
    "CronJob": lambda t: {"apiVersion": "batch/v1", "kind": "CronJob",
                          "spec": {"jobTemplate": {"spec": {"template": t}}}},
    "RayCluster": lambda t: {"apiVersion": "ray.io/v1", "kind": "RayCluster", "spec": {
        "headGroupSpec": {"template": {"spec": {"containers": [{"name": "h", "image": "x"}]}}},
        "workerGroupSpecs": [{"groupName": "w", "template": t}]}},
    "LeaderWorkerSet": lambda t: {"apiVersion": "leaderworkerset.x-k8s.io/v1",
                                  "kind": "LeaderWorkerSet",
                                  "spec": {"leaderWorkerTemplate": {"workerTemplate": t}}},
    "Trainer": lambda t: {"apiVersion": "example.com/v1", "kind": "Trainer",
                          "spec": {"roles": [{"name": "r", "template": t}]}},
    "Server": lambda t: {"apiVersion": "example.com/v1", "kind": "Server", "spec": {
        "components": [{"name": "s", "labels": {"x": "y"}, "podSpec": t["spec"]}]}},
}


@st.composite
def _document(draw: Any) -> tuple[str, dict[str, Any]]:
    name = draw(_resource())
    template = _template(name, draw(st.integers(1, 8)), draw(st.booleans()))
    obj = KINDS[draw(st.sampled_from(sorted(KINDS)))](template)
    return name, obj


_LOCATED = re.compile(r"^[^\n]*?:(\d+):\d+: \[(error|warning|info)\] (.*)$", re.MULTILINE)


def _silent(tmp_path: Path, capsys: pytest.CaptureFixture[str],
            docs: list[tuple[str, dict[str, Any]]]) -> list[str]:
    texts, starts, line = [], [], 1
    for number, (_, obj) in enumerate(docs):
        obj["metadata"] = {"name": f"w{number}"}
        text = yaml.safe_dump(obj, sort_keys=False)
        texts.append(text)
        starts.append(line)
        line += text.count("\n") + 1  # and the "---" before the next one
    path = tmp_path / "stream.yaml"
    path.write_text("---\n".join(texts))
    capsys.readouterr()
    code = main(["apply", "-p", "takeover", str(path)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    said: dict[int, list[str]] = {}
    for found in _LOCATED.finditer(err):
        at = max(i for i, start in enumerate(starts) if start <= int(found.group(1)))
        said.setdefault(at, []).append(found.group(3))
    outputs = list(yaml.safe_load_all(out))
    silent = []
    for number, (name, _) in enumerate(docs):
        migrated = "tensor-fusion.ai/enabled" in yaml.safe_dump(outputs[number])
        if not migrated and not any(name in message for message in said.get(number, [])):
            silent.append(name)
    return silent


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(docs=st.lists(_document(), min_size=1, max_size=8))
def test_any_vendor_resource_is_migrated_or_named(
        docs: list[tuple[str, dict[str, Any]]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _silent(tmp_path, capsys, docs) == []


def test_the_check_of_this_test_sees_a_silent_document(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The property can fail: a resource of no accelerator is neither migrated nor named."""
    quiet = ("example.com/widget", KINDS["Deployment"](_template("example.com/widget", 1, False)))
    assert _silent(tmp_path, capsys, [quiet]) == ["example.com/widget"]


def test_an_upper_case_vendor_domain_is_an_error_where_it_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "NVIDIA.com/gpu"
    path = tmp_path / "upper.yaml"
    path.write_text(yaml.safe_dump(KINDS["Job"](_template(name, 1, False))))
    assert main(["apply", "-p", "takeover", str(path)]) == 1
    err = capsys.readouterr()[1]
    assert "NVIDIA.com/gpu" in err and "(invalid-resource-name)" in err and "[error]" in err
