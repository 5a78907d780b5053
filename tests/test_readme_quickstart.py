"""The README's quickstart runs as written, line by line, in a fresh repository seeded
with the example manifests and inventory, with this checkout's tfpolicy first on PATH and
the cluster snapshot saved beside the repository, where the README's kubectl line puts it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def _quickstart() -> list[str]:
    """The commands of the README's quickstart block, comment lines left out."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quickstart"):]
    start = section.index("```sh\n") + len("```sh\n")
    block = section[start:section.index("\n```", start)]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "manifests", repo / "manifests")
    shutil.copy(ROOT / "examples" / "inventory.yaml", repo / "inventory.yaml")
    # What `kubectl get` printed once takeover-1 soaked (the line the README comments),
    # outside the repository, so the tree promote reads stays clean.
    shutil.copy(ROOT / "examples" / "cluster" / "takeover-1-soaked.yaml",
                tmp_path / "cluster.yaml")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "quickstart"
        env[f"GIT_{who}_EMAIL"] = "quickstart@example.invalid"
    return env


def test_quickstart_as_written(tmp_path: Path) -> None:
    lines = _quickstart()
    assert len(lines) <= 10, "the quickstart stays ten lines"
    repo, env = _repo(tmp_path), _env(tmp_path)
    before = {p.name: p.read_bytes() for p in (repo / "manifests").iterdir()}
    runs = [subprocess.run(["bash", "-c", line], cwd=repo, env=env, capture_output=True,
                           text=True) for line in lines]
    codes = [run.returncode for run in runs]
    # init, the hooks installed, check (would change), fix (changed), check (clean), the
    # commit (the hooks pass), verify (the snapshot shows takeover-1 soaked: ready),
    # promote (that snapshot is older than the rung's commit: the sync has not happened).
    assert codes == [0, 0, 1, 1, 0, 0, 0, 75], [r.stderr[-300:] for r in runs]
    assert "would set" in runs[2].stdout
    assert runs[3].stdout.startswith("Fixing manifests/")
    after = {p.name: p.read_bytes() for p in (repo / "manifests").iterdir()}
    assert {name for name in before if before[name] != after[name]} == {
        line.removeprefix("Fixing manifests/") for line in runs[3].stdout.splitlines()}
    assert "tensor-fusion.ai/enabled-replicas" in after["llm-server.yaml"].decode()
    assert "tfpolicy fix (migrate GPU workloads to TensorFusion)" in runs[5].stdout + \
        runs[5].stderr  # the commit ran the hooks pre-commit install put in place
    log = subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout
    assert len(log.splitlines()) == 1
    assert runs[6].stdout.startswith("verify step 01 takeover-1: ready")
    assert "older than the commit" in runs[7].stdout + runs[7].stderr  # a wait, not refused
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout
    assert status == ""
    assert "policies: [takeover-1]" in (repo / ".tfpolicy.yaml").read_text()  # waited
