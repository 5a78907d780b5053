"""``tfpolicy init`` through the CLI: what it finds, what it writes, what it refuses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).parent / "tfpolicy")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "manifests", repo / "manifests")
    (repo / ".git").mkdir()
    return repo


def _init(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "init", *args, "."], cwd=repo, capture_output=True,
                          text=True)


def test_writes_a_config_that_check_and_fix_use(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    run = _init(repo)
    assert run.returncode == 0, run.stderr
    assert "Deployment/ml-serving/llama-8b-vllm" in run.stdout
    config = yaml.safe_load((repo / ".tfpolicy.yaml").read_text())
    assert config == {"policies": ["takeover-1"]}
    text = (repo / ".tfpolicy.yaml").read_text()
    assert "# namespaces: ml-serving, ml-training\n" in text
    check = subprocess.run([TFPOLICY, "check", "manifests"], cwd=repo, capture_output=True,
                           text=True)
    assert check.returncode == 1 and "(takeover-1)" in check.stdout


def test_pre_commit_hooks_are_the_projects(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert _init(repo).returncode == 0
    declared = {hook["id"]: hook for hook in
                yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    written = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    ids = {hook["id"] for repo_ in written["repos"] for hook in repo_["hooks"]}
    assert ids and ids <= set(declared)
    assert [repo_["repo"] for repo_ in written["repos"]] == ["local"]  # no address, no tag
    for hook in written["repos"][0]["hooks"]:
        twin = declared[hook["id"]]
        assert hook["language"] == "system"
        assert {k: hook[k] for k in ("name", "entry", "types_or", "require_serial")} == \
            {k: twin[k] for k in ("name", "entry", "types_or", "require_serial")}


def test_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text("mine\n")
    run = _init(repo)
    assert run.returncode == 2
    assert run.stderr.startswith(".pre-commit-config.yaml: error: exists")
    assert not (repo / ".tfpolicy.yaml").exists()
    assert (repo / ".pre-commit-config.yaml").read_text() == "mine\n"
    assert _init(repo, "--force").returncode == 0
    assert (repo / ".pre-commit-config.yaml").read_text() != "mine\n"


def test_output_is_deterministic(tmp_path: Path) -> None:
    one, two = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    first, second = _init(one), _init(two)
    assert first.stdout == second.stdout
    for name in (".tfpolicy.yaml", ".pre-commit-config.yaml"):
        assert (one / name).read_bytes() == (two / name).read_bytes()


def test_gpu_workloads_it_cannot_migrate_are_named_not_counted_as_none(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(ROOT / "tests" / "cases" / "findings" / "kubeai-model" / "input.yaml",
                    repo / "models.yaml")
    run = _init(repo)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:3] == [
        "found 0 GPU workloads to migrate",
        "found 1 GPU workloads tfpolicy reports but cannot migrate (tfpolicy check says why)",
        "  Model/llama-3.1-70b-instruct-fp8-h100"]
    assert ("# GPU workloads reported, not migrated (tfpolicy check says why): 1\n"
            in (repo / ".tfpolicy.yaml").read_text())
