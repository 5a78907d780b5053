"""The built-in restarts gate needs no metrics: with no gate declared, a TensorFusion pod
that was OOM-killed and runs again stops the rung, and `builtinGates: {restarts: false}`
switches it off (docs/gates.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
EXAMPLES = ROOT / "examples"
FIRST = """\
    - name: embed
      ready: true
      restartCount: 0
      image: ghcr.io/huggingface/text-embeddings-inference:1.5
      state:
        running:
          startedAt: '2026-11-30T09:00:00Z'
"""
RESTARTED = FIRST.replace("restartCount: 0", "restartCount: 2") + """\
      lastState:
        terminated:
          reason: OOMKilled
          exitCode: 137
"""


def verify(folder: Path, snapshot: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "verify", "-p", "takeover", "--inventory",
                           str(EXAMPLES / "inventory.yaml"), "--cluster", snapshot,
                           "--format", "json", str(EXAMPLES / "manifests")],
                          cwd=folder, capture_output=True, text=True, check=False, timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    text = (EXAMPLES / "cluster" / "after-takeover.yaml").read_text()
    assert text.count(FIRST) == 1
    (tmp_path / "restarted.yaml").write_text(text.replace(FIRST, RESTARTED))
    shutil.copy(EXAMPLES / "cluster" / "after-takeover.yaml", tmp_path / "as-is.yaml")
    return tmp_path


def _restarts(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    report = json.loads(done.stdout)
    return {g["workload"]: g["verdict"] for g in report["gates"] if g["gate"] == "restarts"}


def test_an_oom_killed_pod_that_runs_again_stops_the_rung(folder: Path) -> None:
    before, after = verify(folder, "as-is.yaml"), verify(folder, "restarted.yaml")
    assert set(_restarts(before).values()) == {"pass"}
    assert before.returncode == 75, before.stderr  # a pod still pending: wait, as before
    assert after.returncode == 1, after.stderr
    stopped = {w for w, v in _restarts(after).items() if v == "stop"}
    assert len(stopped) == 1
    said = [g["message"] for g in json.loads(after.stdout)["gates"] if g["verdict"] == "stop"]
    assert said == [said[0]] and "2 restarts, last OOMKilled" in said[0]


def test_the_switch_turns_it_off(folder: Path) -> None:
    (folder / ".tfpolicy.yaml").write_text("policies: [takeover]\n"
                                           "builtinGates: {restarts: false}\n")
    done = verify(folder, "restarted.yaml")
    assert done.returncode == 75, done.stderr
    assert json.loads(done.stdout)["gates"] == []
