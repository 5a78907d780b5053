"""Project config and policy paths: one document, a bounded lookup, paths kept in the repo,
and no file content in any error (issue 8 §4, §5)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy import cli
from tfpolicy.files import project

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
POLICY = ROOT / "policies" / "takeover.yaml"
GPU_DOC = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: main
        resources: {limits: {nvidia.com/gpu: 1}}
"""
SECRET = "token-" + "s3cr3t" * 40  # what a policy path outside the repo could expose


def tfpolicy(*args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run([TFPOLICY, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def _repo(path: Path, config: str) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / ".tfpolicy.yaml").write_text(config)
    (path / "app.yaml").write_text(GPU_DOC)
    return path


def _secret(path: Path) -> Path:
    path.write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\nbin:x:2:2:bin:/bin\n")
    return path


def test_validate_never_prints_the_file_it_was_pointed_at(tmp_path: Path) -> None:
    result = tfpolicy("validate", str(_secret(tmp_path / "secret.txt")), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""  # exit 2: findings go to stderr
    assert SECRET not in result.stderr and "s3cr3t" not in result.stderr
    assert result.stderr.startswith(f"{tmp_path / 'secret.txt'}:1:1: [error] ")
    assert "the document is a string, not a policy mapping" in result.stderr


def test_validate_findings_go_to_stderr_when_it_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text(POLICY.read_text().replace("stage: takeover", "stage: sideways"))
    result = tfpolicy("validate", "--format", "json", str(bad), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert '"severity": "error"' in result.stderr


def test_a_long_string_in_a_policy_is_named_by_its_length(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text(POLICY.read_text() + f"  pool: [{SECRET}]\n")
    result = tfpolicy("validate", str(bad), cwd=tmp_path)
    assert result.returncode == 2
    assert SECRET not in result.stderr and "a list of 1 item" in result.stderr


def test_a_multi_document_config_is_an_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "policies: [takeover]\n---\npolicies: [rollback]\n")
    result = tfpolicy("apply", "app.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"{repo / '.tfpolicy.yaml'}:2: error: 2 YAML documents: "
                             "a project config is one document\n")


@pytest.mark.parametrize("ref", ["/etc/hostname", "../outside.yaml", "link.yaml"])
def test_config_policy_paths_stay_in_the_repository(tmp_path: Path, ref: str) -> None:
    outside = _secret(tmp_path / "outside.yaml")
    repo = _repo(tmp_path / "repo", f"policies: ['{ref}']\n")
    (repo / "link.yaml").symlink_to(outside)
    result = tfpolicy("apply", "app.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (2, "")
    assert "leaves the repository" in result.stderr and SECRET not in result.stderr
    assert result.stderr.startswith(f"{repo / '.tfpolicy.yaml'}: error: policy path {ref!r}")


def test_config_policy_paths_inside_the_repository_work(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", "policies: [policies/p.yaml, rollback]\n")
    (repo / "policies").mkdir()
    (repo / "shared").mkdir()
    shutil.copy(POLICY, repo / "shared" / "p.yaml")
    (repo / "policies" / "p.yaml").symlink_to(repo / "shared" / "p.yaml")  # a link kept inside
    (repo / "apps").mkdir()
    result = tfpolicy("apply", "../app.yaml", cwd=repo / "apps")
    assert result.returncode == 0, result.stderr
    assert "tensor-fusion.ai/enabled" in result.stdout


def test_an_explicit_policy_path_is_the_users_choice(tmp_path: Path) -> None:
    shutil.copy(POLICY, tmp_path / "mine.yaml")
    repo = _repo(tmp_path / "repo", "policies: [takeover]\n")
    result = tfpolicy("apply", "-p", str(tmp_path / "mine.yaml"), "app.yaml", cwd=repo)
    assert result.returncode == 0, result.stderr


def test_lookup_without_git_stops_at_home(tmp_path: Path) -> None:
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [takeover]\n")  # above home: not used
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    (project / "app.yaml").write_text(GPU_DOC)
    result = tfpolicy("apply", "--explain", "app.yaml", cwd=project, home=home)
    assert (result.returncode, result.stdout) == (2, "")
    assert (f"tfpolicy: no .tfpolicy.yaml found; the lookup stopped at {home} "
            "(the user's home)\n") in result.stderr
    (home / ".tfpolicy.yaml").write_text("policies: [takeover]\n")  # home itself still counts
    result = tfpolicy("apply", "--explain", "app.yaml", cwd=project, home=home)
    assert result.returncode == 0, result.stderr
    assert f"tfpolicy: using {home / '.tfpolicy.yaml'}\n" in result.stderr


def test_lookup_without_git_stops_at_a_filesystem_boundary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    mount = tmp_path / "mnt"
    (mount / "app").mkdir(parents=True)
    (mount / "app" / "a.yaml").write_text(GPU_DOC)
    inside = mount.resolve()
    # A mount at ``mnt``: the folders from it down are on another device than its parent.
    monkeypatch.setattr(project, "_device", lambda folder: int(folder.is_relative_to(inside)))
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(mount / "app")
    code = cli.main(["apply", "--explain", "a.yaml"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert f"the lookup stopped at {mount.resolve()} (a filesystem boundary)" in err
