"""``verify`` on a ``generateName`` object (docs/verify.md "Objects named by generateName"):
its run is found by the prefix through its pods' owners, the newest of several runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parent.parent
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: train-
  namespace: ml-training
spec:
  template:
    metadata:
      labels: {app: trainer}
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.08-py3
        resources:
          limits:
            nvidia.com/gpu: 1
"""
SHOWN = "Job/ml-training/train-* (generateName)"


def _builder() -> ModuleType:
    path = ROOT / "tests" / "verify" / "build_snapshots.py"
    spec = importlib.util.spec_from_file_location("build_snapshots", path)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    return builder


def _run_pod(b: ModuleType, job: str, *, tf: bool, created: str) -> dict[str, Any]:
    pod: dict[str, Any] = b.pod(f"{job}-abcde", "trainer", ("Job", job), tf=tf,
                                gpu_index=2 if tf else None)
    pod["metadata"]["creationTimestamp"] = created
    pod["metadata"]["ownerReferences"][0]["apiVersion"] = "batch/v1"
    return pod


def _verify(tmp_path: Path, capsys: pytest.CaptureFixture[str], manifests: str,
            pods: list[dict[str, Any]], used: list[int]) -> tuple[int, str]:
    b = _builder()
    (tmp_path / "job.yaml").write_text(manifests)
    (tmp_path / "cluster.yaml").write_text(b.as_list([*pods, *b.operator(used)]))
    capsys.readouterr()
    code = main(["verify", "-p", "takeover", "--cluster", str(tmp_path / "cluster.yaml"),
                 str(tmp_path / "job.yaml")])
    return code, capsys.readouterr().out


def test_the_run_is_matched_by_its_prefix(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    b = _builder()
    code, out = _verify(tmp_path, capsys, JOB,
                        [_run_pod(b, "train-x7k2p", tf=True, created=b.T0)], [2])
    assert code == 0, out
    assert f"{SHOWN}: ready (TensorFusion pods 1/1, native 0/0)" in out


def test_a_run_still_native_waits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = _builder()
    code, out = _verify(tmp_path, capsys, JOB,
                        [_run_pod(b, "train-x7k2p", tf=False, created=b.T0)], [])
    assert code == 75, out
    assert f"{SHOWN}: wait (TensorFusion pods 0/1, native 1/0)" in out


@pytest.mark.parametrize(("old", "new"), [("train-aaaaa", "train-zzzzz"),
                                          ("train-zzzzz", "train-aaaaa")])
def test_the_newest_run_is_the_one_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            old: str, new: str) -> None:
    """Whatever the names' order, the run whose pods were created last is judged."""
    b = _builder()
    pods = [_run_pod(b, old, tf=False, created="2026-11-29T09:00:00Z"),
            _run_pod(b, new, tf=True, created=b.T0)]
    code, out = _verify(tmp_path, capsys, JOB, pods, [2])
    assert code == 0, out
    assert f"{SHOWN}: ready (TensorFusion pods 1/1, native 0/0)" in out
    pods = [_run_pod(b, old, tf=True, created="2026-11-29T09:00:00Z"),
            _run_pod(b, new, tf=False, created=b.T0)]
    code, out = _verify(tmp_path, capsys, JOB, pods, [2])
    assert code == 75, out
    assert f"{SHOWN}: wait (TensorFusion pods 0/1, native 1/0)" in out


def test_other_prefixes_and_namespaces_are_not_its_runs(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    b = _builder()
    pod = _run_pod(b, "trainer-x7k2p", tf=True, created=b.T0)
    pod["metadata"]["ownerReferences"][0]["name"] = "traim-x7k2p"
    elsewhere = _run_pod(b, "train-x7k2p", tf=True, created=b.T0)
    elsewhere["metadata"]["namespace"] = "other"
    code, out = _verify(tmp_path, capsys, JOB, [pod, elsewhere], [2])
    assert code == 75, out
    assert f"{SHOWN}: wait (TensorFusion pods 0/1" in out


def test_two_manifests_sharing_a_prefix_wait_and_say_why(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    b = _builder()
    pods = [_run_pod(b, "train-x7k2p", tf=True, created=b.T0)]
    code, out = _verify(tmp_path, capsys, JOB + "---\n" + JOB, pods, [2])
    assert code == 75, out
    assert "2 objects of the manifests are named by generateName 'train-'" in out
    assert f"{SHOWN} #2: wait" in out
