"""Whose keys (DESIGN §2, issue 7 §1): through the real CLI, a stage changes only the keys it
owns, records the user's values it replaces, and ``check`` warns about user keys that
conflict with the stage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
TF = "tensor-fusion.ai/"
RECORD = "tfpolicy.dev/original"
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: ml}}
spec:
  replicas: 2
  template:
    metadata:
      labels: {{app: web}}
      annotations:
{annotations}    spec:
      containers:
      - name: main
        image: img
        resources:
          limits:
            nvidia.com/gpu: {gpus}
"""
POLICY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {{name: p}}
spec:
  stage: rightsize
  resources: {{{share}: {{request: "30", limit: "60"}}, vram: {{limit: 8Gi}}}}
"""


def manifest(annotations: dict[str, str], gpus: int = 1) -> str:
    lines = "".join(f"        {key}: {json.dumps(value)}\n" for key, value in annotations.items())
    return TEMPLATE.format(annotations=lines or "        team: x\n", gpus=gpus)


def tfpolicy(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=60)


def policy(tmp_path: Path, stage: str) -> str:
    if stage == "takeover":
        return "takeover"
    share = "computePercent" if stage == "percent" else "tflops"
    path = tmp_path / f"{stage}.yaml"
    path.write_text(POLICY.format(share=share))
    return str(path)


def template_of(text: str) -> dict[str, Any]:
    return dict(yaml.safe_load(text)["spec"]["template"])


CONFLICTS = [
    ("tflops-and-compute-percent", "takeover", 1,
     {TF + "tflops-request": "30", TF + "compute-percent-request": "25"}),
    ("gpu-count-disagrees", "takeover", 4, {TF + "gpu-count": "2"}),
    ("gpu-indices-disagrees", "takeover", 2, {TF + "gpu-indices": "0"}),
    ("gpu-indices-disagrees", "tflops", 1, {TF + "gpu-indices": "0,1"}),
    ("user-key-replaced", "takeover", 1, {TF + "isolation": "soft"}),
    ("user-key-replaced", "tflops", 1, {TF + "vram-limit": "4Gi"}),
    ("user-key-removed", "tflops", 1, {TF + "compute-percent-limit": "50"}),
    ("user-key-removed", "percent", 1, {TF + "tflops-request": "10"}),
    ("dedicated-gpu-overrides-share", "tflops", 1,
     {TF + "dedicated-gpu": "true", TF + "gpu-model": "NVIDIA A100-SXM4-80GB"}),
    ("dedicated-gpu-overrides-share", "takeover", 1,
     {TF + "dedicated-gpu": "true", TF + "vram-limit": "8Gi"}),
]


@pytest.mark.parametrize(("rule", "stage", "gpus", "annotations"), CONFLICTS)
def test_check_warns_about_a_conflicting_user_key(tmp_path: Path, rule: str, stage: str,
                                                  gpus: int, annotations: dict[str, str]) -> None:
    path = tmp_path / "web.yaml"
    path.write_text(manifest(annotations, gpus))
    done = tfpolicy(tmp_path, "check", "--format", "json", "-p", policy(tmp_path, stage),
                    str(path))
    assert done.returncode == 1, done.stderr
    found = [f for f in json.loads(done.stdout) if f["tags"]["rule"] == rule]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    where = {f"spec.template.metadata.annotations[{key}]" for key in annotations}
    assert found[0]["field"]["path"] in where
    assert path.read_text() == manifest(annotations, gpus)


AGREEING = [
    ("takeover", 4, {TF + "gpu-count": "4", TF + "gpu-indices": "0,1,2,3"}),
    ("takeover", 1, {TF + "isolation": "shared", TF + "is-local-gpu": "false"}),
    ("tflops", 2, {TF + "gpu-indices": " 0, 1", TF + "vram-limit": "8Gi"}),
    ("percent", 1, {TF + "compute-percent-limit": "60", TF + "disable-features": "gpu-opt"}),
    ("tflops", 1, {TF + "dedicated-gpu": "false", TF + "tflops-limit": "60"}),
]


@pytest.mark.parametrize(("stage", "gpus", "annotations"), AGREEING)
def test_no_warning_when_the_user_keys_agree(tmp_path: Path, stage: str, gpus: int,
                                             annotations: dict[str, str]) -> None:
    path = tmp_path / "web.yaml"
    path.write_text(manifest(annotations, gpus))
    done = tfpolicy(tmp_path, "check", "--format", "json", "-p", policy(tmp_path, stage),
                    str(path))
    rules = {f["tags"]["rule"] for f in json.loads(done.stdout)}
    assert rules <= {"would-change"}, rules


def test_fix_through_every_stage_and_back_keeps_the_user_keys(tmp_path: Path) -> None:
    user = {TF + "isolation": "soft", TF + "tflops-limit": "20", TF + "is-local-gpu": "false",
            TF + "workload-profile": "llm", TF + "gpu-count": "1", TF + "gang-min-members": "2"}
    path = tmp_path / "web.yaml"
    path.write_text(manifest(user))
    for stage in ("takeover", "tflops", "percent", "takeover", "rollback"):
        done = tfpolicy(tmp_path, "fix", "-p", policy(tmp_path, stage) if stage != "rollback"
                        else "rollback", str(path))
        assert done.returncode in (0, 1), done.stderr
    assert template_of(path.read_text()) == template_of(manifest(user))


def test_the_record_is_one_readable_annotation(tmp_path: Path) -> None:
    path = tmp_path / "web.yaml"
    path.write_text(manifest({TF + "isolation": "hard", TF + "sidecar-worker": "true"}))
    done = tfpolicy(tmp_path, "apply", "-p", policy(tmp_path, "tflops"), str(path))
    annotations = template_of(done.stdout)["metadata"]["annotations"]
    assert [k for k in annotations if k.startswith("tfpolicy.dev/")] == [RECORD]
    record = json.loads(annotations[RECORD])
    assert record["labels"] == {TF + "enabled": {}}
    assert TF + "sidecar-worker" not in record["annotations"]
    assert record["annotations"][TF + "tflops-request"] == {}
    assert record["resources"] == {"main": {"limits": {"nvidia.com/gpu": 1}}}
    assert annotations[TF + "isolation"] == "hard"  # rightsize without isolation keeps it


def test_a_record_with_members_it_does_not_know_still_rolls_back(tmp_path: Path) -> None:
    """Issue 14 adds positions, styles and comments to the entries: readers skip them."""
    record = {"labels": {TF + "enabled": {"position": 1}},
              "annotations": {TF + "isolation": {"was": "soft", "style": "plain"}},
              "resources": {"main": {"limits": {"nvidia.com/gpu": 1}}}, "comments": {}}
    staged = TEMPLATE.format(gpus=1, annotations=(
        f"        {TF}isolation: shared\n        {RECORD}: '{json.dumps(record)}'\n"
    )).replace("labels: {app: web}", f'labels: {{app: web, {TF}enabled: "true"}}')
    staged = staged.replace("        resources:\n          limits:\n"
                            "            nvidia.com/gpu: 1\n", "")
    path = tmp_path / "web.yaml"
    path.write_text(staged)
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", str(path))
    assert done.returncode == 0, done.stderr
    assert template_of(done.stdout) == template_of(manifest({TF + "isolation": "soft"}))


@pytest.mark.parametrize("text", ['{"labels": []}', '{"annotations": {"k": "v"}}', "[1]", "{"])
def test_a_broken_record_is_an_error_and_changes_nothing(tmp_path: Path, text: str) -> None:
    path = tmp_path / "web.yaml"
    path.write_text(manifest({RECORD: text}))
    done = tfpolicy(tmp_path, "apply", "-p", "rollback", str(path))
    assert done.returncode == 1
    assert f"cannot read {RECORD}:" in done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(manifest({RECORD: text}))
