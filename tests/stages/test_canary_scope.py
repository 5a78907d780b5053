"""A canary rung in ``fix`` and ``check`` chooses over every manifest the config governs
(docs/stages.md, "What the input is"), through the CLI: naming one file, or each in turn,
moves the workload the whole repository's order picks, the one ``plan`` and ``verify`` expect.

The repository: three PyTorchJobs, one per file, and a Deployment, under one
``.tfpolicy.yaml`` at ``takeover-1``. The order (namespace, kind, name) puts
``job-a`` first; chosen file by file, each job would be the first of its own file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.stages.test_canary_workloads import idle_operator
from tfpolicy.cli import main

INPUT = ROOT / "tests" / "cases" / "canary-workloads" / "input.yaml"
TF = "tensor-fusion.ai/"
JOBS = ("c", "a", "b")


def _repo(path: Path, *, git: bool = True, config: str = "policies: [takeover-1]\n") -> Path:
    job, _, deployment = INPUT.read_text(encoding="utf-8").split("---\n")
    (path / "jobs").mkdir(parents=True)
    for name in JOBS:
        (path / "jobs" / f"{name}.yaml").write_text(
            job.replace("name: finetune", f"name: job-{name}"), encoding="utf-8")
    (path / "deploy.yaml").write_text(deployment, encoding="utf-8")
    (path / ".tfpolicy.yaml").write_text(config, encoding="utf-8")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=path, check=True)
        subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _migrated(path: Path) -> set[str]:
    """The workloads whose every pod template carries TensorFusion's label, by name."""
    found = set()
    for file in sorted(path.rglob("*.yaml")):
        for doc in yaml.safe_load_all(file.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and "kind" in doc and TF + "enabled" in str(doc):
                found.add(f"{doc['kind']}/{doc['metadata']['namespace']}/"
                          f"{doc['metadata']['name']}")
    return found


def _texts(path: Path) -> dict[str, str]:
    return {str(f.relative_to(path)): f.read_text(encoding="utf-8")
            for f in sorted(path.rglob("*.yaml")) if ".git" not in f.parts}


@pytest.mark.parametrize("git", [True, False], ids=["git", "no-git"])
def test_fix_on_one_file_moves_only_the_repository_s_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        git: bool) -> None:
    repo = _repo(tmp_path / "repo", git=git)
    monkeypatch.chdir(repo)
    before = _texts(repo)
    code, _, err = _run(capsys, "fix", "jobs/c.yaml")  # not the first: it waits
    assert code == 0, err
    assert _texts(repo) == before
    assert "#3 of the 3 workloads" in err and "waits for a later rung" in err
    code, out, err = _run(capsys, "fix", "jobs/a.yaml", "jobs/b.yaml")
    assert code == 1 and out == "Fixing jobs/a.yaml\n", err
    assert _migrated(repo) == {"PyTorchJob/ml/job-a"}


def test_check_on_each_file_alone_agrees_with_check_on_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    code, whole, _ = _run(capsys, "check", ".")
    assert code == 1
    would_all = {line.split(":")[0] for line in whole.splitlines() if ": would " in line}
    assert would_all == {"jobs/a.yaml", "deploy.yaml"}
    would_each = set()
    for name in (*(f"jobs/{n}.yaml" for n in JOBS), "deploy.yaml"):
        code, out, err = _run(capsys, "check", name)
        assert code in (0, 1), err
        would_each |= {line.split(":")[0] for line in out.splitlines() if ": would " in line}
    assert would_each == would_all


def test_plan_and_verify_expect_what_fix_wrote_file_by_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    for name in (*(f"jobs/{n}.yaml" for n in JOBS), "deploy.yaml"):  # as a hook would
        code, _, err = _run(capsys, "fix", name)
        assert code in (0, 1), err
    fixed = _migrated(repo)
    assert fixed == {"PyTorchJob/ml/job-a", "Deployment/serving/chat"}
    plain = _repo(tmp_path / "plain", git=False)  # the manifests as written: plan's input
    code, text, err = _run(capsys, "plan", "-p", "takeover", "--inventory",
                           str(INPUT.parent / "inventory.yaml"), "--format", "json", str(plain))
    assert code == 0, err
    moved = json.loads(text)["steps"][0]["moved"]
    assert set(moved["whole"]) == fixed - {"Deployment/serving/chat"}
    assert set(moved["waiting"]) == {"PyTorchJob/ml/job-b", "PyTorchJob/ml/job-c"}
    _, text, err = _run(capsys, "verify", "-p", "takeover", "--step", "1", "--cluster",
                        str(idle_operator(tmp_path)), "--format", "json", str(repo))
    expected = {w["workload"]: w["tensorFusionPods"]["expected"]
                for w in json.loads(text)["workloads"]}
    on_tf = {name.rsplit("/", 1)[0] if name.startswith("PyTorchJob") else name
             for name, count in expected.items() if count}
    assert on_tf == fixed, err


def test_policies_given_with_p_choose_over_the_files_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    code, out, err = _run(capsys, "check", "-p", "takeover-1", "jobs/c.yaml")
    assert code == 1 and "#1 of the 1 workloads" in out, err
    code, out, err = _run(capsys, "check", "-p", "takeover-1", "jobs/c.yaml", "jobs/b.yaml")
    would = {line.split(":")[0] for line in out.splitlines() if ": would " in line}
    assert code == 1 and would == {"jobs/b.yaml"}, err


def test_a_full_rung_reads_nothing_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """At 100 % no order is needed: a broken manifest elsewhere is not read."""
    repo = _repo(tmp_path / "repo", config="policies: [takeover]\n")
    (repo / "broken.yaml").write_text("apiVersion: v1\nkind: [\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    monkeypatch.chdir(repo)
    code, out, err = _run(capsys, "fix", "jobs/c.yaml")
    assert code == 1 and out == "Fixing jobs/c.yaml\n", err
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover-1]\n", encoding="utf-8")
    code, _, err = _run(capsys, "check", "jobs/b.yaml")  # the order needs it: bad input
    assert code == 2 and err.startswith("broken.yaml:3:1: error: invalid YAML"), err


def test_a_named_file_git_does_not_track_yet_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo")
    new = repo / "jobs" / "new.yaml"
    new.write_text((repo / "jobs" / "a.yaml").read_text().replace("job-a", "job-0"))
    monkeypatch.chdir(repo)
    code, out, err = _run(capsys, "check", "jobs/new.yaml", "jobs/a.yaml")
    would = {line.split(":")[0] for line in out.splitlines() if ": would " in line}
    assert code == 1 and would == {"jobs/new.yaml"}, out + err
    assert "#2 of the 4 workloads" in out and "#1 of the 4 workloads" in out
