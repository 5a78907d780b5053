"""``fix -p`` reads each file once where the first pass would look only for DRA objects,
presuming there are none (``tfpolicy.files.canary_order.presumed``); a file that holds
one, or an error, sends the run back through the pass before anything is replaced, so
the outcome is the pass's: the claim resolved across files (docs/guarantees.md, "A pod's
DRA claims are resolved over the whole input"), the files rewritten once, and the error
the pass meets first."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.files.test_dra_fix_check import APP as DRA_APP
from tests.files.test_dra_fix_check import TEMPLATE

TFPOLICY = Path(sys.executable).parent / "tfpolicy"
LLM = Path(__file__).resolve().parents[2] / "examples" / "manifests" / "llm-server.yaml"


def _fix(cwd: Path, *names: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TFPOLICY), "fix", "-p", "takeover", *names], cwd=cwd,
                          capture_output=True, text=True, check=False)


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "tfpolicy" in p.name)


def test_a_claim_after_a_rewritten_file_is_found_and_the_file_rewritten_once(
        tmp_path: Path) -> None:
    alone, tree = tmp_path / "alone", tmp_path / "tree"
    alone.mkdir()
    tree.mkdir()
    shutil.copy(LLM, alone / "a-llm.yaml")
    shutil.copy(LLM, tree / "a-llm.yaml")
    (tree / "b-app.yaml").write_text(DRA_APP)
    (tree / "c-claims.yaml").write_text(TEMPLATE)
    assert _fix(alone, "a-llm.yaml").returncode == 1  # rewritten: "files changed"
    done = _fix(tree, "a-llm.yaml", "b-app.yaml", "c-claims.yaml")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == ["Fixing a-llm.yaml"]
    assert (tree / "a-llm.yaml").read_bytes() == (alone / "a-llm.yaml").read_bytes()
    assert (tree / "a-llm.yaml").read_bytes() != LLM.read_bytes()
    assert "b-app.yaml:" in done.stderr and "2 devices of class gpu.nvidia.com through " \
        "ResourceClaimTemplate 'two-gpus'" in done.stderr, done.stderr
    assert (tree / "b-app.yaml").read_text() == DRA_APP
    assert (tree / "c-claims.yaml").read_text() == TEMPLATE
    assert _temps(tree) == []


def test_the_error_is_the_one_the_pass_meets_first(tmp_path: Path) -> None:
    """The pass parses only the files that may hold a DRA object: a broken one of them
    is the error, though a broken file before it comes first in the rewrite."""
    (tmp_path / "a-broken.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml\n")
    (tmp_path / "b-claims.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
        "metadata:\n  name: x\n  name: y\n")
    shutil.copy(LLM, tmp_path / "c-llm.yaml")
    done = _fix(tmp_path, "c-llm.yaml", "a-broken.yaml", "b-claims.yaml")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "b-claims.yaml:5:3: error: invalid YAML: duplicate key 'name' (first at line 4)"]
    assert done.stdout == ""
    assert (tmp_path / "c-llm.yaml").read_bytes() == LLM.read_bytes()
    assert _temps(tmp_path) == []


def test_a_claim_in_the_last_of_many_files_sends_the_workers_back(tmp_path: Path) -> None:
    """Enough files for batches in two worker processes: the run that presumed no claim
    is dropped with its workers, and the run with the pass rewrites every file once."""
    alone, tree = tmp_path / "alone", tmp_path / "tree"
    alone.mkdir()
    tree.mkdir()
    shutil.copy(LLM, alone / "llm.yaml")
    assert _fix(alone, "llm.yaml").returncode == 1
    names = [f"{n:02d}-llm.yaml" for n in range(40)]
    for name in names:
        shutil.copy(LLM, tree / name)
    (tree / "98-app.yaml").write_text(DRA_APP)
    (tree / "99-claims.yaml").write_text(TEMPLATE)
    done = _fix(tree, "-j", "2", *names, "98-app.yaml", "99-claims.yaml")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"Fixing {name}" for name in names]
    assert {(tree / name).read_bytes() for name in names} == {(alone / "llm.yaml").read_bytes()}
    assert "2 devices of class gpu.nvidia.com through ResourceClaimTemplate 'two-gpus'" \
        in done.stderr, done.stderr
    assert _temps(tree) == []
