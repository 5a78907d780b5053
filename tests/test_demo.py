"""``make demo``, the first run: its commands that exit 1 (findings) or 75 (wait) on purpose
say so, none reads like a failure, a cost that rises is explained, and promote advances a
scratch repository from takeover-1 to takeover-25 in one commit, gated on an offline answer
file, then a gate stops the same rung, then climbs a second scratch repository from
takeover-100 to rightsize-1 with the savings the plan promised, then leaves no trace."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def test_make_demo_reads_like_a_story(tmp_path: Path) -> None:
    if shutil.which("make") is None or not (BIN / "tfpolicy").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("make and the venv's tfpolicy are needed in CI")
        pytest.skip("make or the venv's tfpolicy is missing")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    os.utime(tmp_path / "pyproject.toml", (0, 0))  # older than the venv: make builds nothing
    done = subprocess.run(["make", "demo", f"BIN={BIN}"], capture_output=True, text=True,
                          cwd=tmp_path, check=False, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-2000:]
    assert "Error" not in out and "(ignored)" not in out
    assert out.count("as intended)") == 4
    assert "(exit 1: findings: what fix would change, as intended)" in out
    assert "(exit 75: wait: verify again later, as intended)" in out
    cost = next(line for line in out.splitlines() if "cost per hour of the GPUs in use" in line)
    assert "saved)" in cost or "more: " in cost  # a rise says why
    assert (tmp_path / "plan.html").exists() and (tmp_path / "verify.html").exists()
    assert "promote: takeover-1 (step 01): advance" in out
    assert "names takeover-25" in out and "policies: [takeover-25]" in out
    log = out.split("git -C .demo-promote log --oneline\n", 1)[1].splitlines()[:2]
    assert log[0].endswith(" GPU migration: takeover-1 to takeover-25, verify said ready")
    assert log[1].endswith(" GPU migration: takeover-1")
    assert "## Promote: `takeover-1` → `takeover-25`" in out  # the pull request's body
    assert "ready, every TensorFusion pod ready for at least 10m (the most recent for 20m); " \
           "gates: 6 judged (0 stop, 0 wait, 6 pass)" in out  # gated on the answer file
    stop = out.split("a gate stops it\n", 1)[1]
    assert "promote: takeover-1 (step 01): stop" in stop
    assert "gate p99-latency on Deployment/ml-serving/llama-8b-vllm: fails: " in stop
    assert "(exit 1: stop: a gate failed; the rollback rung is committed, as intended)" in stop
    assert " GPU migration: roll back takeover-1 to rollback, a gate failed\n" in stop
    assert not (tmp_path / ".demo-promote").exists() and not (tmp_path / ".demo-pr.md").exists()
    ladder = out.split("== tfpolicy promote up the rightsize ladder", 1)[1]
    assert "promote: takeover-100 (step 04): advance" in ladder
    assert "names rightsize-1" in ladder and "rung: rightsize-1" in ladder
    assert " GPU migration: takeover-100 to rightsize-1, verify said ready\n" in ladder
    assert "- Savings the plan promised so far (the plan's step 05 rightsize-1 against step " \
           "04 takeover-100): " in ladder
    assert "GPU-hours per day." in ladder and "per month (730 hours" in ladder
    assert not (tmp_path / ".demo-ladder").exists()
