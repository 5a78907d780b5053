"""Two runs of one ``generateName`` manifest are two workloads of a canary rung
(docs/plan.md "Objects named by generateName"): ``plan`` counts and names them apart,
``apply`` and ``check`` choose as the plan says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.test_same_names_plan import INVENTORY  # one small fleet for both
from tfpolicy.cli import main

RUN = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: train-
  namespace: ml
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: x
        resources:
          limits:
            nvidia.com/gpu: 1
"""
SHOWN = "Job/ml/train-* (generateName)"
ENABLED = "tensor-fusion.ai/enabled"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _enabled(text: str) -> list[bool]:
    return [ENABLED in (d["spec"]["template"].get("metadata") or {}).get("labels", {})
            for d in yaml.safe_load_all(text)]


def test_plan_counts_two_runs_and_names_the_second(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inv.yaml").write_text(INVENTORY)
    (tmp_path / "runs.yaml").write_text(RUN + "---\n" + RUN)
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory",
                          str(tmp_path / "inv.yaml"), "--format", "json",
                          str(tmp_path / "runs.yaml"))
    assert code == 0, err
    moved = json.loads(out)["steps"][0]["moved"]
    assert moved == {"tensorFusion": 1, "total": 2, "whole": [SHOWN], "waiting": [f"{SHOWN} #2"]}
    code, out, err = _run(capsys, "plan", "-p", "takeover", "--inventory",
                          str(tmp_path / "inv.yaml"), str(tmp_path / "runs.yaml"))
    first = out.split("step 01 takeover-1")[1].split("step 02")[0]
    assert "workloads: 1 of 2 on TensorFusion" in first
    assert f"wait for a later rung, left as they are: {SHOWN} #2" in first


def test_apply_moves_the_first_run_as_the_plan_says(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs.yaml").write_text(RUN + "---\n" + RUN)
    code, out, err = _run(capsys, "apply", "-p", "takeover-1", str(tmp_path / "runs.yaml"))
    assert code == 0, err
    assert _enabled(out) == [True, False]
    assert "#1 of the 2 workloads of this input" in err
    assert "#2 of the 2 workloads of this input" in err


def test_runs_in_two_files_are_chosen_over_both(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.yaml").write_text(RUN)
    (tmp_path / "b.yaml").write_text(RUN)
    code, out, err = _run(capsys, "apply", "-p", "takeover-1", str(tmp_path / "a.yaml"),
                          str(tmp_path / "b.yaml"))
    assert code == 0, err
    assert _enabled(out) == [True, False]
    code, out, err = _run(capsys, "check", "-p", "takeover-1", str(tmp_path))
    assert code == 1, err
    changed = [line for line in out.splitlines() if "migrated whole at this rung" in line]
    assert len(changed) == 1 and changed[0].startswith(str(tmp_path / "a.yaml")), out
    waits = [line for line in out.splitlines() if "waits for a later rung" in line]
    assert len(waits) == 1 and waits[0].startswith(str(tmp_path / "b.yaml")), out
