"""A cluster whose HAMi resources are renamed (``spec.hami``): every stage knows the names.

A template asking only for the renamed shares (HAMi then gives it one card)
is a GPU workload for rightsize, and takeover refuses it as it refuses
HAMi's chart names, since no node offers those resources outside HAMi.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HAMI = """  hami:
    resourceMem: example.com/vgpu-memory
    resourceCores: example.com/vgpu-cores
"""
TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  selector:
    matchLabels:
      app: chat
  template:
    metadata:
      labels:
        app: chat
    spec:
      containers:
        - name: chat
          image: ghcr.io/example/chat:1
          resources:
            limits:
              example.com/vgpu-memory: "20000"
              example.com/vgpu-cores: "40"
"""


def _policy(tmp_path: Path, stage: str) -> Path:
    path = tmp_path / f"{stage}.yaml"
    path.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                    f"metadata:\n  name: from-hami\nspec:\n  stage: {stage}\n"
                    "  gpuModel: NVIDIA A100-SXM4-80GB\n" + HAMI)
    return path


def _apply(tmp_path: Path, stage: str) -> tuple[int, str, str]:
    manifest = tmp_path / "chat.yaml"
    manifest.write_text(TEMPLATE)
    tfpolicy = Path(sys.executable).parent / "tfpolicy"
    result = subprocess.run([str(tfpolicy), "apply", "-p", str(_policy(tmp_path, stage)),
                             str(manifest)], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout, result.stderr


def test_rightsize_converts_a_template_asking_only_for_renamed_shares(tmp_path: Path) -> None:
    code, out, err = _apply(tmp_path, "rightsize")
    assert code == 0, err
    assert "tensor-fusion.ai/compute-percent-request: \"40\"" in out
    assert "example.com/vgpu" not in out.split("tfpolicy.dev/original")[0]


def test_takeover_refuses_renamed_hami_shares(tmp_path: Path) -> None:
    code, out, err = _apply(tmp_path, "takeover")
    assert code == 1
    assert "tensor-fusion.ai" not in out  # the template is left as it was
    assert "example.com/vgpu-memory in container 'chat' is a HAMi share" in err
    assert "[error]" in err
