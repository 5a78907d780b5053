"""HAMi's shares through the real CLI (issue 12): what rightsize makes of each value, what
it refuses, and that rollback gives every HAMi key back as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
TF = "tensor-fusion.ai/"
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm}}
spec:
  replicas: 1
  template:
    metadata:
      annotations: {annotations}
    spec:
      containers:
      - name: main
        image: img
        resources:
          limits: {limits}
"""


def policy(tmp_path: Path, extra: str = "") -> str:
    path = tmp_path / "policy.yaml"
    path.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                    "metadata: {name: p}\nspec:\n  stage: rightsize\n"
                    f"  resources: {{tflops: {{limit: '40'}}}}\n{extra}")
    return str(path)


def apply(policy_arg: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "apply", "-p", policy_arg, "-"], input=text,
                          capture_output=True, text=True, check=False)


def template_of(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    result = data["spec"]["template"]
    assert isinstance(result, dict)
    return result


def annotations(text: str) -> dict[str, Any]:
    found = template_of(text)["metadata"].get("annotations") or {}
    assert isinstance(found, dict)
    return found


@pytest.mark.parametrize(("limits", "vram", "percent"), [
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem: 6000}", "6000Mi", None),
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem: 6000, nvidia.com/gpumem-percentage: 50}",
     "6000Mi", None),  # gpumem wins, as HAMi reads it
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 10}", "2457Mi", None),  # 10 % of 24 GiB
    ("{nvidia.com/gpu: 1, nvidia.com/gpucores: 250}", None, "100"),  # clamped as HAMi does
    ("{nvidia.com/gpucores: '40'}", None, "40"),
])
def test_each_form(tmp_path: Path, limits: str, vram: str | None, percent: str | None) -> None:
    done = apply(policy(tmp_path, "  gpuModel: L4\n"), TEMPLATE.format(annotations="{}",
                                                                        limits=limits))
    assert done.returncode == 0, done.stderr
    found = annotations(done.stdout)
    assert found.get(TF + "vram-limit") == vram and found.get(TF + "vram-request") == vram
    assert found.get(TF + "compute-percent-limit") == percent
    assert (TF + "tflops-limit" in found) == (percent is None)  # the policy's, unless HAMi's
    assert found[TF + "gpu-count"] == "1"
    assert "resources" not in template_of(done.stdout)["spec"]["containers"][0]


@pytest.mark.parametrize(("limits", "says"), [
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem: 4Gi}", "gpumem in container 'main' is not a whole"),
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 150}", "from 0 to 100, as HAMi"),
    ("{nvidia.com/gpu: 1, nvidia.com/gpucores: 0.5}", "gpucores in container 'main' is not"),
    ("{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 50}", "no card of known VRAM is named"),
])
def test_refused_values_leave_the_template(tmp_path: Path, limits: str, says: str) -> None:
    text = TEMPLATE.format(annotations="{}", limits=limits)
    done = apply(policy(tmp_path), text)
    assert done.returncode == 1
    assert done.stdout == text
    errors = [line for line in done.stderr.splitlines() if "[error]" in line]
    assert len(errors) == 1 and says in errors[0]
    assert errors[0].startswith("<stdin>:14:")  # located at the value's line


def test_ambiguous_gpu_type_is_not_a_model(tmp_path: Path) -> None:
    text = TEMPLATE.format(annotations="{nvidia.com/use-gputype: A100}",
                           limits="{nvidia.com/gpu: 1, nvidia.com/gpumem: 8000}")
    done = apply(policy(tmp_path), text)
    assert done.returncode == 0, done.stderr
    assert TF + "gpu-model" not in annotations(done.stdout)
    assert "nvidia.com/use-gputype 'A100' has no TensorFusion equivalent" in done.stderr


def test_rollback_gives_every_hami_key_back(tmp_path: Path) -> None:
    text = TEMPLATE.format(
        annotations="{nvidia.com/use-gputype: 'T4', hami.io/node-scheduler-policy: spread}",
        limits="{nvidia.com/gpu: '2', nvidia.com/gpumem-percentage: 30, nvidia.com/priority: 0}")
    done = apply(policy(tmp_path), text)
    assert done.returncode == 0, done.stderr
    found = annotations(done.stdout)
    assert found[TF + "gpu-model"] == "Tesla T4"
    assert found[TF + "vram-limit"] == f"{16 * 1024 * 30 // 100}Mi"
    assert not any(key.startswith(("nvidia.com/", "hami.io/")) for key in found)
    back = apply("rollback", done.stdout)
    assert back.returncode == 0, back.stderr
    assert yaml.safe_load(back.stdout) == yaml.safe_load(text)
