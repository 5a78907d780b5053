"""recommend reads the configuration's namespace as every command does, and its query
resolution is --resolution (--step, its old name, still read)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

METRICS = str(ROOT / "examples" / "metrics" / "vllm-small-model-2d.json")
MANIFEST = ROOT / "examples" / "metrics" / "vllm-small-model.yaml"
TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))


def recommend(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "recommend", "--metrics", METRICS, *args, "m.yaml"],
                          cwd=cwd, capture_output=True, text=True, check=False, timeout=120)


def _repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    text = MANIFEST.read_text()
    (tmp_path / "m.yaml").write_text(text.replace("  namespace: ml-serving\n", ""))
    return tmp_path


def test_the_configurations_namespace_names_the_workloads(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    alone = recommend(repo)
    assert alone.returncode == 2 and "Deployment/default/qwen-small-vllm" in alone.stderr
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover]\nnamespace: ml-serving\n")
    configured = recommend(repo)
    assert configured.returncode == 0, configured.stderr
    assert configured.stdout == recommend(repo, "-n", "ml-serving").stdout
    assert "ml-serving" in configured.stdout


def test_resolution_and_its_old_name_give_the_same_policy(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover]\nnamespace: ml-serving\n")
    new, old = recommend(repo, "--resolution", "10m"), recommend(repo, "--step", "10m")
    assert new.returncode == 0 and (new.stdout, new.stderr) == (old.stdout, old.stderr)
    assert "resolution 10m" in new.stdout
