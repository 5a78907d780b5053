"""A record naming a device this run does not know is refused, never dropped (docs/record.md).

A rightsize whose policy lists ``huawei.com/npu`` in ``gpuResources`` removes the NPU
count and keeps it in the record. A rollback whose policies do not name it cannot tell
it from a hostile entry; ignoring it would lose the count with the record, so the
template is refused, left byte for byte as it is, until a policy lists it. Kubernetes'
own resources in a record stay ignored with a warning. Through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.stages.test_stages_record_trust import RECORD, tfpolicy

WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: ml
spec:
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
    spec:
      containers:
        - name: server
          image: img:1
          resources:
            limits:
              huawei.com/npu: 1
              cpu: "4"
"""
RIGHTSIZE = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: npu-rightsize}
spec:
  stage: rightsize
  gpuResources: [huawei.com/npu]
  resources:
    tflops: {request: "30", limit: "60"}
    vram: {limit: 8Gi}
"""
ROLLBACK_NAMING = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: npu-rollback}
spec:
  stage: rollback
  gpuResources: [huawei.com/npu]
"""


@pytest.fixture
def staged(tmp_path: Path) -> Path:
    """The workload rightsized under a policy naming the NPU, as ``app.yaml``."""
    (tmp_path / "in.yaml").write_text(WORKLOAD)
    (tmp_path / "rightsize.yaml").write_text(RIGHTSIZE)
    (tmp_path / "rollback.yaml").write_text(ROLLBACK_NAMING)
    done = tfpolicy(tmp_path, "apply", "-p", "rightsize.yaml", "in.yaml")
    assert done.returncode == 0, done.stderr
    assert "huawei.com/npu" not in yaml.safe_load(done.stdout)["spec"]["template"]["spec"][
        "containers"][0]["resources"]["limits"]
    (tmp_path / "app.yaml").write_text(done.stdout)
    return tmp_path


def refusal(stderr: str, text: str) -> list[str]:
    line = next(n for n, row in enumerate(text.splitlines(), 1) if RECORD in row)
    errors = [row for row in stderr.splitlines() if "[error]" in row]
    assert len(errors) == 1, stderr
    assert errors[0].startswith(f"app.yaml:{line}:"), stderr
    assert "'huawei.com/npu' in the limits of container 'server'" in errors[0]
    assert "gpuResources" in errors[0]
    return errors


def test_apply_refuses_and_writes_the_template_as_it_is(staged: Path) -> None:
    text = (staged / "app.yaml").read_text()
    done = tfpolicy(staged, "apply", "-p", "rollback", "app.yaml")
    assert done.returncode == 1
    refusal(done.stderr, text)
    assert done.stdout == text  # the record, and the NPU count it keeps, are still there


@pytest.mark.parametrize("command", ["check", "fix"])
def test_check_and_fix_refuse_and_leave_the_file(staged: Path, command: str) -> None:
    text = (staged / "app.yaml").read_text()
    done = tfpolicy(staged, command, "-p", "rollback", "app.yaml")
    assert done.returncode == 1
    refusal(done.stdout + done.stderr, text)  # check and fix report on stdout
    assert (staged / "app.yaml").read_text() == text


def test_once_a_policy_names_it_rollback_gives_it_back(staged: Path) -> None:
    done = tfpolicy(staged, "apply", "-p", "rollback.yaml", "app.yaml")
    assert done.returncode == 0, done.stderr
    assert done.stdout == WORKLOAD


def test_a_stage_over_the_record_is_refused_too(staged: Path) -> None:
    text = (staged / "app.yaml").read_text()
    done = tfpolicy(staged, "apply", "-p", "takeover", "app.yaml")
    assert done.returncode == 1
    refusal(done.stderr, text)
    assert done.stdout == text


@pytest.mark.parametrize("resource", ["cpu", "memory", "ephemeral-storage", "hugepages-2Mi",
                                      "kubernetes.io/batch", "example.kubernetes.io/x"])
def test_kubernetes_own_resources_stay_ignored(staged: Path, resource: str) -> None:
    """Beside the NPU, a record entry for a resource Kubernetes owns: ignored with a warning,
    the NPU comes back under a policy naming it."""
    text = (staged / "app.yaml").read_text()
    row = next(r for r in text.splitlines() if r.lstrip().startswith(RECORD))
    record = json.loads(yaml.safe_load(row)[RECORD])
    record["resources"]["server"]["limits"][resource] = "9"
    quoted = json.dumps(json.dumps(record, separators=(",", ":")))
    indent = row[:len(row) - len(row.lstrip())]
    (staged / "app.yaml").write_text(text.replace(row, f"{indent}{RECORD}: {quoted}"))
    done = tfpolicy(staged, "apply", "-p", "rollback.yaml", "app.yaml")
    assert done.returncode == 0, done.stderr
    assert "[error]" not in done.stderr
    assert f"{resource!r} in the limits of container 'server', which is not a GPU resource: " \
           "ignored, not restored" in done.stderr
    assert done.stdout == WORKLOAD
