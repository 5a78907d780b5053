"""One object defined twice in the input (docs/plan.md "One object, one definition"):
``plan`` and ``verify`` refuse it naming both places, exit 2, nothing written; ``admission``,
``check`` and ``apply`` answer per document."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy.cli import main

INVENTORY = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
metadata: {name: tiny}
spec:
  defaultPool: pool
  pools:
    - name: pool
      nodeGroups: [{name: n, count: 1, gpusPerNode: 8, model: A100_SXM_80G}]
"""


def workload(kind: str = "Deployment", meta: str = "name: web", api: str = "apps/v1") -> str:
    return f"""\
apiVersion: {api}
kind: {kind}
metadata:
  {meta}
  namespace: default
spec:
  replicas: 1
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
        - name: main
          image: x
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def inventory(tmp_path: Path) -> str:
    path = tmp_path / "inv.yaml"
    path.write_text(INVENTORY)
    return str(path)


def test_two_files_are_refused_naming_both(tmp_path: Path, inventory: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.yaml").write_text(workload())
    (tmp_path / "b.yaml").write_text("# the same app again\n" + workload())
    out_file, emitted = tmp_path / "plan.txt", tmp_path / "steps"
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory", inventory,
                          "-o", str(out_file), "--emit-policies", str(emitted),
                          str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"))
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{tmp_path / 'b.yaml'}:5:")
    assert f"Deployment/default/web is defined twice, at {tmp_path / 'a.yaml'}:4:" in lines[0]
    assert "internal error" not in err
    assert not out_file.exists() and not emitted.exists()


def test_twice_in_one_stream_from_stdin(inventory: str) -> None:
    text = "---\n" + workload() + "---\n" + workload()
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "takeover",
                           "--inventory", inventory, "-"], input=text, capture_output=True,
                          text=True, check=False)
    err = done.stderr
    first = text.splitlines().index("  name: web") + 1
    second = text.splitlines().index("  name: web", first) + 1
    assert done.returncode == 2 and done.stdout == ""
    assert err.startswith(f"<stdin>:{second}:"), err
    assert f"defined twice, at <stdin>:{first}:" in err


def test_other_kinds_or_namespaces_are_other_objects(tmp_path: Path, inventory: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = workload("StatefulSet") + "---\n" + workload().replace("default", "prod")
    (tmp_path / "m.yaml").write_text(workload() + "---\n" + other)
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory", inventory,
                          str(tmp_path / "m.yaml"))
    assert code == 0, err
    assert "pods: 3 TensorFusion" in out


def test_two_generate_name_runs_are_two_workloads(tmp_path: Path, inventory: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = workload("Job", "generateName: train-", "batch/v1").replace("  replicas: 1\n", "")
    (tmp_path / "m.yaml").write_text(run + "---\n" + run)
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory", inventory,
                          str(tmp_path / "m.yaml"))
    assert code == 0, err
    assert "pods: 0 TensorFusion, 2 device plugin" in out


def test_verify_refuses_the_same_input(tmp_path: Path, inventory: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.yaml").write_text(workload())
    (tmp_path / "b.yaml").write_text(workload())
    (tmp_path / "cluster.yaml").write_text("kind: List\nitems: []\n")
    code, out, err = _run(capsys, "verify", "-p", "takeover", "--inventory", inventory,
                          "--cluster", str(tmp_path / "cluster.yaml"),
                          str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"))
    assert code == 2 and out == ""
    assert err.startswith(f"{tmp_path / 'b.yaml'}:4:"), err
    assert f"defined twice, at {tmp_path / 'a.yaml'}:4:" in err


def test_admission_check_and_apply_answer_per_document(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(workload())
    b.write_text(workload())
    code, out, err = _run(capsys, "admission", "-p", "takeover", str(a), str(b))
    assert code == 0, err
    assert f"Deployment/default/web: untouched ({a})" in out
    assert f"Deployment/default/web: untouched ({b})" in out
    assert "2 pod templates, 0 rejected" in out
    code, out, err = _run(capsys, "apply", "-p", "takeover", str(a), str(b))
    assert code == 0, err
    assert out.count("tensor-fusion.ai/enabled: \"true\"") == 2
