"""Numbers the engine reads from manifests: replica counts and GPU counts (issue 8 §2).

``replicas: .inf`` and friends, ``nvidia.com/gpu: .nan``, a 5,000-digit GPU count: a
located error finding or exit 2, never an internal error, never read as another number.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.workloads import MAX_REPLICAS, ReplicasError, replicas_of

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
POLICIES = ["takeover", "rightsize-example", "takeover-25"]


def deployment(replicas: str, gpus: str) -> str:
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n"
            f"  replicas: {replicas}\n  template:\n    metadata:\n      labels: {{app: w}}\n"
            "    spec:\n      containers:\n      - name: c\n        image: x\n"
            f"        resources:\n          limits:\n            nvidia.com/gpu: {gpus}\n")


def apply(tmp_path: Path, text: str, policy: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "m.yaml").write_text(text)
    return subprocess.run([TFPOLICY, "apply", "-p", policy, "m.yaml"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60, check=False)


BAD_REPLICAS = [".inf", "-.inf", ".nan", "'3'", "2.5", "-1", "2147483648", "true",
                "1" + "0" * 4000, "[1]"]  # 1e9 is 1000000000 to kubectl (docs/yaml.md)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("replicas", BAD_REPLICAS, ids=lambda r: r[:12])
def test_a_replica_count_kubernetes_refuses_is_refused(tmp_path: Path, replicas: str,
                                                       policy: str) -> None:
    result = apply(tmp_path, deployment(replicas, "1"), policy)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    if result.returncode == 2:  # refused as bad input: one short line, nothing written
        assert result.stdout == "" and len(lines) == 1 and len(lines[0]) < 300, lines
        assert "spec.replicas" in lines[0] and "is not a replica count" in lines[0]
    else:  # or a located error finding
        assert result.returncode == 1, result
        assert any(re.match(r"m\.yaml:5:\d+: \[error\] .*replicas", line) for line in lines)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("gpus", [".nan", ".inf", "-.inf", "1.5", "true", "'$GPU_PER_NODE'",
                                  "'1e999999999'", "'1e-999999999'", f"'1{'0' * 5000}'",
                                  "'9999999999999999999999Ei'"], ids=lambda g: g[:12])
def test_an_odd_gpu_count_is_a_located_error_in_every_stage(tmp_path: Path, gpus: str,
                                                            policy: str) -> None:
    result = apply(tmp_path, deployment("2", gpus), policy)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert result.returncode == 1, result
    assert re.search(r"^m\.yaml:15:\d+: \[error\] .*nvidia\.com/gpu", result.stderr, re.M)
    assert "nvidia.com/gpu" in result.stdout and "tensor-fusion.ai" not in result.stdout


def test_sane_replicas_still_count(tmp_path: Path) -> None:
    result = apply(tmp_path, deployment("8", "1"), "takeover-25")
    assert result.returncode == 0, result
    assert "tensor-fusion.ai/enabled-replicas: \"2\"" in result.stdout


def obj(kind: str, **spec: Any) -> dict[str, Any]:
    return {"kind": kind, "metadata": {"name": "w"}, "spec": {**spec, "template": {"spec": {}}}}


@pytest.mark.parametrize(("kind", "spec", "expected"), [
    ("Deployment", {}, 1), ("Deployment", {"replicas": None}, 1),
    ("Deployment", {"replicas": 0}, 0), ("Deployment", {"replicas": 3.0}, 3),
    ("Deployment", {"replicas": MAX_REPLICAS}, MAX_REPLICAS),
    ("Job", {"parallelism": 4, "replicas": "x"}, 4), ("DaemonSet", {"replicas": "x"}, None),
])
def test_replicas_as_kubernetes_reads_them(kind: str, spec: dict[str, Any],
                                           expected: int | None) -> None:
    assert replicas_of(obj(kind, **spec), ("spec", "template")) == expected


@pytest.mark.parametrize("value", [float("inf"), float("nan"), -1, MAX_REPLICAS + 1, True, "3",
                                   "1e9", 2.5, 10**4000, [1], {"a": 1}])
def test_replicas_kubernetes_refuses_are_errors_with_their_path(value: Any) -> None:
    with pytest.raises(ReplicasError) as caught:
        replicas_of(obj("StatefulSet", replicas=value), ("spec", "template"))
    assert isinstance(caught.value, TfpolicyError) and caught.value.path == ("spec", "replicas")
    assert len(str(caught.value)) < 200
