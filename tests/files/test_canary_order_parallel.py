"""A canary rung's first pass over all a config governs runs in worker processes as the
rewrite does, and says the same as in one: the same choice, the same first error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfpolicy.cli import main

STATEFUL = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {name}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
      - name: main
        image: vllm/vllm-openai:v0.6.3
        resources:
          limits:
            nvidia.com/gpu: 1
"""


def _repo(tmp_path: Path, count: int = 150) -> list[str]:
    """``count`` StatefulSets (more than one run of files: the workers take part) under a
    configuration at a canary rung."""
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [takeover-25]\n")
    names = []
    for n in range(count):
        path = tmp_path / f"s{n:03d}.yaml"
        path.write_text(STATEFUL.format(name=f"s{n:03d}"))
        names.append(path.name)
    return names


def _check(capsys: pytest.CaptureFixture[str], jobs: str, *files: str) -> tuple[int, str, str]:
    code = main(["check", "-j", jobs, *files])
    out, err = capsys.readouterr()
    return int(code or 0), out, err


def test_the_choice_is_the_same_in_one_process_and_in_several(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    names = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    picked = names[0], names[37], names[38], names[-1]  # chosen, chosen, left, left
    alone = _check(capsys, "1", *picked)
    together = _check(capsys, "2", *picked)
    assert alone == together
    code, out, _ = alone
    assert code == 1, out
    changed = sorted(line.split(":")[0] for line in out.splitlines() if "would set" in line)
    assert changed == [names[0], names[37]], out  # 25 % of 150: the first 38
    assert "#39 of the 150 workloads" in out and "the rung takes 38" in out


def test_a_broken_manifest_stops_both_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    names = _repo(tmp_path)
    (tmp_path / names[120]).write_text("kind: StatefulSet\nmetadata: {name: x\n")
    monkeypatch.chdir(tmp_path)
    alone = _check(capsys, "1", names[0])
    together = _check(capsys, "2", names[0])
    assert alone == together
    code, out, err = alone
    assert code == 2 and out == "" and err.startswith(f"{names[120]}:"), err
