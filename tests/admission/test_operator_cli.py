"""``tfpolicy admission`` / ``plan`` with the operator's configuration, end to end (issue 7 §2, 8 §2/§4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

INVENTORY = ROOT / "examples" / "inventory.yaml"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, check=False)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def deployment(annotations: str = "", labels: str = "tensor-fusion.ai/enabled: 'true'",
               limits: str = "", replicas: int = 1, kind: str = "Deployment") -> str:
    return f"""\
apiVersion: apps/v1
kind: {kind}
metadata: {{name: llm, namespace: ml}}
spec:
  replicas: {replicas}
  template:
    metadata:
      labels: {{{labels}}}
      annotations: {{{annotations}}}
    spec:
      containers:
        - name: main
          image: x
          resources: {{limits: {{{limits}}}}}
"""


OPERATOR = """\
apiVersion: v1
kind: List
items:
- apiVersion: tensor-fusion.ai/v1
  kind: WorkloadProfile
  metadata: {name: big, namespace: ml}
  spec:
    qos: low
    resources: {requests: {tflops: "10", vram: 1Gi}, limits: {tflops: "20", vram: 2Gi}}
- apiVersion: tensor-fusion.ai/v1
  kind: GPU
  metadata: {name: gpu-0}
  status: {gpuModel: NVIDIA A100-SXM4-80GB, capacity: {tflops: "312", vram: 81920Mi}}
- apiVersion: tensor-fusion.ai/v1
  kind: ProviderConfig
  metadata: {name: amd-provider}
  spec: {vendor: AMD, inUseResourceNames: [amd.com/gpu]}
"""


def test_workload_profile_and_dedicated_gpu_from_operator_config(tmp_path: Path) -> None:
    manifest = write(tmp_path, "d.yaml", deployment(
        "tensor-fusion.ai/workload-profile: big, tensor-fusion.ai/dedicated-gpu: 'true', "
        "tensor-fusion.ai/gpu-model: NVIDIA A100-SXM4-80GB"))
    alone = run("admission", manifest)
    assert alone.returncode == 1
    assert 'workloadprofiles.tensor-fusion.ai "big" not found' in alone.stdout
    ops = write(tmp_path, "ops.yaml", OPERATOR)
    configured = run("admission", "--operator-config", ops, manifest)
    assert configured.returncode == 0, configured.stderr
    assert "qos low, TFLOPS 312/312, VRAM 81920Mi/81920Mi" in configured.stdout


def test_provider_config_decides_what_a_gpu_is(tmp_path: Path) -> None:
    values = write(tmp_path, "values.yaml", "dynamicConfig: {autoMigration: {enable: true}}\n")
    manifest = write(tmp_path, "d.yaml", deployment(labels="app: x", limits="amd.com/gpu: 1"))
    chart = run("admission", "--values", values, manifest)
    assert "untouched" in chart.stdout and "not a GPU pod" in chart.stdout
    ops = write(tmp_path, "ops.yaml", OPERATOR)
    amd = run("admission", "--values", values, "--operator-config", ops, manifest)
    assert amd.returncode == 0, amd.stderr
    assert "migrated" in amd.stdout and "isolation shared" in amd.stdout


def test_helm_cluster_and_pool_name_the_default_pool(tmp_path: Path) -> None:
    values = write(tmp_path, "values.yaml", "cluster: {name: prod, pool: {name: a100}}\n")
    manifest = write(tmp_path, "d.yaml", deployment(limits="nvidia.com/gpu: 1"))
    result = run("admission", "--values", values, manifest)
    assert result.returncode == 0, result.stderr
    assert "pool prod-a100" in result.stdout


def test_failure_policy_ignore_admits_unchanged(tmp_path: Path) -> None:
    manifest = write(tmp_path, "d.yaml", deployment("tensor-fusion.ai/gpu-indices: '²'"))
    fail = run("admission", manifest)
    assert fail.returncode == 1, fail.stderr  # rejected, not an internal error
    assert "gpu-indices annotation is not valid" in fail.stdout
    values = write(tmp_path, "values.yaml",
                   "controller: {admissionWebhooks: {failurePolicy: Ignore}}\n")
    ignore = run("admission", "--values", values, "-o", "-", manifest)
    assert ignore.returncode == 0, ignore.stderr
    assert "webhook error: parse tf resources" in ignore.stderr
    assert "tensor-fusion.ai/component" not in ignore.stdout  # the pod as submitted


def test_bad_failure_policy_is_bad_input(tmp_path: Path) -> None:
    values = write(tmp_path, "values.yaml", "controller: {admissionWebhooks: {failurePolicy: x}}\n")
    result = run("admission", "--values", values, write(tmp_path, "d.yaml", deployment()))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "values.yaml: error: controller.admissionWebhooks.failurePolicy must be Fail or Ignore" in result.stderr


def test_bad_operator_object_is_located(tmp_path: Path) -> None:
    ops = write(tmp_path, "ops.yaml", OPERATOR.replace('tflops: "10"', "tflops: 1e999999999"))
    result = run("admission", "--operator-config", ops, write(tmp_path, "d.yaml", deployment()))
    assert result.returncode == 2, result.stderr
    assert "ops.yaml" in result.stderr and "WorkloadProfile 'big'" in result.stderr


def test_enabled_replicas_counted_on_pod_template_hash(tmp_path: Path) -> None:
    cap = "tensor-fusion.ai/enabled-replicas: '1', tensor-fusion.ai/tflops-request: '10'"
    plain = write(tmp_path, "rs.yaml", deployment(cap, replicas=3, kind="ReplicaSet"))
    assert "pods: 1 of 3" not in run("admission", plain).stdout  # the cap never bites
    hashed = write(tmp_path, "rsh.yaml", deployment(
        cap, labels="tensor-fusion.ai/enabled: 'true', pod-template-hash: abc", replicas=3,
        kind="ReplicaSet"))
    assert "pods: 1 of 3 taken over" in run("admission", hashed).stdout


def test_fractional_percent_exact_and_tflops_with_percent_reserves_nothing(tmp_path: Path) -> None:
    manifest = write(tmp_path, "d.yaml", deployment(
        "tensor-fusion.ai/compute-percent-request: '12.5', tensor-fusion.ai/vram-request: 1Gi"))
    assert "compute 12.5%/0%" in run("admission", manifest).stdout
    both = write(tmp_path, "b.yaml", deployment(
        "tensor-fusion.ai/compute-percent-request: '50', tensor-fusion.ai/tflops-request: '10'"))
    out = run("admission", both).stdout
    assert "the request carries both TFLOPS and compute-percent" in out


def test_output_names_stay_inside_the_folder(tmp_path: Path) -> None:
    evil = "".join(f"""\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {ns}}}
spec: {{containers: [{{name: main, image: x}}]}}
""" for name, ns in (("'../../escape'", "'../../x'"), ("/etc/passwd", "/abs"),
                     ("'a\\0b'", "ns"), ("x" * 300, "ns"), ("ok", "ml")))
    manifest = write(tmp_path, "evil.yaml", evil)
    out = tmp_path / "deep" / "out"
    result = run("admission", "-o", str(out), manifest)
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 5 and "ml_Pod_ok.yaml" in written
    assert all(len(n) < 140 and "/" not in n and "\0" not in n for n in written)
    everything = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert everything == {tmp_path / "evil.yaml", *(out / n for n in written)}


def test_plan_refuses_a_billion_replicas_quickly(tmp_path: Path) -> None:
    manifest = write(tmp_path, "d.yaml", deployment(labels="app: x", limits="nvidia.com/gpu: 1",
                                                   replicas=1_000_000_000))
    result = run("plan", "-p", "takeover", "--inventory", str(INVENTORY), manifest)
    assert result.returncode == 2, result.stderr
    assert "at most 100,000" in result.stderr and "d.yaml:5:13: error:" in result.stderr
