"""The README's quickstart runs as written, line by line, in a fresh repository seeded
with the example manifests, with this checkout's tfpolicy first on PATH."""

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
    # What `kubectl get` printed after the takeover rolled out (the line the README comments).
    shutil.copy(ROOT / "examples" / "cluster" / "after-takeover.yaml", repo / "cluster.yaml")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _env() -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "quickstart"
        env[f"GIT_{who}_EMAIL"] = "quickstart@example.invalid"
    return env


def test_quickstart_as_written(tmp_path: Path) -> None:
    lines = _quickstart()
    assert len(lines) <= 10, "the quickstart stays ten lines"
    repo, env = _repo(tmp_path), _env()
    before = {p.name: p.read_bytes() for p in (repo / "manifests").iterdir()}
    runs = [subprocess.run(["bash", "-c", line], cwd=repo, env=env, capture_output=True,
                           text=True) for line in lines]
    codes = [run.returncode for run in runs]
    # write the config, check (would change), fix (changed), check (clean), commit,
    # verify (the snapshot is a later step's cluster: not ready, exit 1), promote (that
    # snapshot is older than the rung's commit: the sync has not happened, a wait).
    assert codes == [0, 1, 1, 0, 0, 1, 75], [r.stderr[-300:] for r in runs]
    assert "would set" in runs[1].stdout
    assert runs[2].stdout.startswith("Fixing manifests/")
    after = {p.name: p.read_bytes() for p in (repo / "manifests").iterdir()}
    assert {name for name in before if before[name] != after[name]} == {
        line.removeprefix("Fixing manifests/") for line in runs[2].stdout.splitlines()}
    assert "tensor-fusion.ai/enabled-replicas" in after["llm-server.yaml"].decode()
    log = subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout
    assert len(log.splitlines()) == 1
    assert runs[5].stdout.startswith("verify step 01 takeover-1: ")
    assert (repo / ".tfpolicy.yaml").read_text() == "policies: [takeover-1]\n"  # waited
