"""Which files fix and check work on: named paths only, each file's nearest config,
foreign YAML/JSON and chart templates skipped (said under --explain)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, cwd=cwd, text=True,
                          timeout=60, check=False)


def _repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    shutil.copyfile(LLM, tmp_path / "app" / "llm.yaml")
    (tmp_path / "site.yaml").write_text("- hosts: all\n  roles: [nvidia.com/gpu]\n")
    (tmp_path / "tsconfig.json").write_text('{\n  // nvidia.com/gpu\n  "a": 1,\n}\n')
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "chart" / "templates" / "d.yaml").write_text("x: {{ .Values.gpu }}\n")
    return tmp_path


def test_each_file_takes_its_nearest_config_and_foreign_files_are_skipped(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    done = tfpolicy("check", "--explain", "-p", "takeover", ".", cwd=repo)
    assert done.returncode == 1, done.stderr
    skipped = sorted(line.split(":")[1].strip().split()[-1]
                     for line in done.stderr.splitlines() if line.startswith("tfpolicy: skipped"))
    assert skipped == ["chart/templates/d.yaml", "site.yaml", "tsconfig.json"]
    done = tfpolicy("check", "--explain", ".", cwd=repo)  # no -p: app/.tfpolicy.yaml governs
    assert done.returncode == 1 and "app/llm.yaml:" in done.stdout, done.stderr
    assert "tfpolicy: skipped site.yaml: no .tfpolicy.yaml found" in done.stderr


def test_no_config_governs_any_file_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    done = tfpolicy("check", "site.yaml", cwd=repo)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("tfpolicy: error: no policy given")
    assert tfpolicy("check", "--skip-unconfigured", "site.yaml", cwd=repo).returncode == 0


def test_a_broken_manifest_stays_an_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "app" / "bad.json").write_text(
        '{\n  // a comment\n  "apiVersion": "v1", "kind": "Pod", "x": "nvidia.com/gpu"\n}\n')
    done = tfpolicy("check", "app", cwd=repo)
    assert done.returncode == 2 and done.stderr.startswith("app/bad.json:"), done.stderr
    (repo / "app" / "bad.json").unlink()
    (repo / "app" / "list.yaml").write_text("- apiVersion: v1\n  kind: Pod  # nvidia.com/gpu\n")
    done = tfpolicy("fix", "app", cwd=repo)
    assert done.returncode == 2 and done.stderr.startswith("app/list.yaml:1:"), done.stderr
    assert (repo / "app" / "llm.yaml").read_bytes() == LLM.read_bytes()  # nothing written


def test_no_paths_is_an_explicit_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for command in ("fix", "check"):
        done = tfpolicy(command, "-p", "takeover", cwd=repo)
        assert (done.returncode, done.stdout) == (2, "")
        assert "no files named" in done.stderr
        assert "`.` for" in tfpolicy(command, "--help", cwd=repo).stdout
    assert (repo / "app" / "llm.yaml").read_bytes() == LLM.read_bytes()


def test_validate_discovers_policies_by_kind(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    policy = "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: p}\n"
    (repo / "migration.yaml").write_text(policy + "spec: {stage: takover}\n")
    names = ["migration.yaml", "site.yaml", "app/.tfpolicy.yaml", "app/llm.yaml"]
    done = tfpolicy("validate", "--discover", *names, cwd=repo)
    assert done.returncode == 2 and done.stderr.startswith("migration.yaml:4:"), done.stderr
    (repo / "migration.yaml").write_text(policy + "spec: {stage: takeover}\n")
    done = tfpolicy("validate", "--discover", *names, cwd=repo)
    assert (done.returncode, done.stderr) == (0, "2 policies valid\n")


def test_apply_without_paths_does_not_read_stdin(tmp_path: Path) -> None:
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover"], input=LLM.read_text(),
                          capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert "`-` for stdin" in done.stderr
