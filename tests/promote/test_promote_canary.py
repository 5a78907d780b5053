"""``tfpolicy promote`` with a PyTorchJob in a file of its own beside the Deployment and the
StatefulSet of verify's manifests: a canary rung moves the first whole workloads of all
the configuration governs (docs/stages.md, "What the input is"), so ``fix``, which
promote runs, and verify, which reads the whole folder, agree.

The uncapped workloads, in order: StatefulSet ml-training/trainer, then PyTorchJob
research/finetune. takeover-1 moves the first; takeover-25 (a quarter of two, rounded
up) the same one: the PyTorchJob waits on the device plugin at both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.promote.promote_repo import SNAPSHOTS, Repo, at_hour, capped
from tfpolicy.cli import main

ADVANCED = 0
JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: finetune
  namespace: research
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: ghcr.io/example/finetune:1.2
              resources:
                limits:
                  nvidia.com/gpu: 1
"""


def _waiting_job() -> list[dict[str, Any]]:
    """Step 01's cluster, and the PyTorchJob's master on the device plugin (the fourth card)."""
    master = SNAPSHOTS.pod("finetune-master-0", "pytorch", ("PyTorchJob", "finetune"),
                           tf=False, gpu_index=None)
    master["metadata"]["namespace"] = "research"
    master["metadata"]["labels"]["training.kubeflow.org/replica-type"] = "master"
    master["metadata"]["ownerReferences"][0]["apiVersion"] = "kubeflow.org/v1"
    items = capped()
    items[-1] = SNAPSHOTS.device_plugin_gpu(3)
    return [master, *items]


def test_a_job_in_its_own_file_waits_through_the_first_rungs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    job = repo.path / "manifests" / "jobs" / "finetune.yaml"
    job.parent.mkdir()
    job.write_text(JOB, encoding="utf-8")
    assert main(["fix", str(job.relative_to(repo.path))]) == 0  # second in the order: waits
    assert job.read_text(encoding="utf-8") == JOB
    repo.commit_all("the fine-tuning job", hour=8)
    capsys.readouterr()

    snapshot = at_hour(_waiting_job(), 9, repo.path.parent, "step01")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    out = capsys.readouterr().out
    assert "verify step 01 takeover-1: ready" in out, out
    assert "policies: [takeover-25]  # rung" in repo.rung
    assert job.read_text(encoding="utf-8") == JOB  # a quarter of two: still the StatefulSet
    assert repo.status() == ""
    assert main(["check", "manifests"]) == 0
    out = capsys.readouterr().out
    assert ("PyTorchJob/research/finetune: left as it is, waits for a later rung (#2 of the 2 "
            "workloads") in out, out
    assert main(["verify", "--step", "2", "--cluster", snapshot, "manifests"]) == 0
    out = capsys.readouterr().out
    assert "verify step 02 takeover-25: ready" in out, out
    assert "PyTorchJob/research/finetune: ready (TensorFusion pods 0/0, native 1/1)" in out
    assert "StatefulSet/ml-training/trainer: ready (TensorFusion pods 1/1, native 0/0)" in out
