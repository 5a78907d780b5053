"""Which step ``verify`` judges: the manifests are required, the step defaults to the rung
the configuration names, and a snapshot of another step is said before the verdict."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", *args],
                          capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL,
                          check=False)


@pytest.fixture(name="repo")
def _repo(tmp_path: Path) -> Path:
    """The bundled examples with the demo's configuration: rung takeover-1, and gates."""
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    shutil.copy(EXAMPLES / "gates" / "tfpolicy.yaml", tmp_path / "ex" / ".tfpolicy.yaml")
    return tmp_path / "ex"


def _verify(repo: Path, snapshot: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run(repo, "--inventory", "inventory.yaml", "--metrics",
                "gates/takeover-1-steady.json", "--cluster", f"cluster/{snapshot}.yaml",
                *extra, "manifests/")


def test_no_manifests_is_refused_in_one_line(repo: Path) -> None:
    done = _run(repo, "--cluster", "cluster/takeover-1-soaked.yaml",
                "--metrics", "gates/takeover-1-steady.json")
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "name the manifests" in done.stderr


def test_the_step_is_the_configurations_rung(repo: Path) -> None:
    done = _verify(repo, "takeover-1-soaked")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("verify step 01 takeover-1: ready")
    asked = _verify(repo, "takeover-1-soaked", "--step", "4")
    assert asked.stdout.splitlines()[1].startswith("verify step 04 takeover-100: ")


def test_a_snapshot_of_another_step_is_said_first(repo: Path) -> None:
    done = _verify(repo, "after-takeover", "--format", "json")
    report = json.loads(done.stdout)
    assert report["step"] == "01 takeover-1" and report["verdict"] == "stop"
    assert report["shows"]["step"] == 4 and report["shows"]["podsOff"] == 0
    text = _verify(repo, "after-takeover").stdout.splitlines()
    assert text[0].startswith("the cluster shows step 04 takeover-100 (0 pods differ")
    assert text[0].endswith("did you mean --step 4?")
    assert text[1].startswith("verify step 01 takeover-1: stop")
    job = next(line for line in text if "stop: Job/ml-training/embed-corpus-2024-10:" in line)
    assert "cap did not hold" not in job
    assert "a Job gets no enabled-replicas cap" in job
    deployment = next(line for line in text
                      if "stop: Deployment/ml-serving/llama-8b-vllm:" in line)
    assert "the enabled-replicas cap did not hold" in deployment


def test_the_step_matching_the_snapshot_says_nothing_more(repo: Path) -> None:
    done = _verify(repo, "after-takeover", "--step", "4", "--format", "json")
    assert json.loads(done.stdout)["shows"] is None
