"""``tfpolicy --version``: the version and the commit, from git in a checkout (a built
package carries it instead: test_package.py), and only a checkout's own top folder counts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfpolicy import __version__, git_commit
from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
TFPOLICY = Path(sys.executable).parent / "tfpolicy"


def _git(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, text=True, capture_output=True, check=False)


def test_version_names_the_checkout_commit() -> None:
    head = _git("rev-parse", "HEAD").stdout.strip()
    modified = _git("diff", "--quiet", "HEAD", "--").returncode != 0
    done = subprocess.run([TFPOLICY, "--version"], text=True, capture_output=True, check=False)
    assert done.returncode == 0 and done.stderr == ""
    suffix = "+modified" if modified else ""
    assert done.stdout == f"tfpolicy, version {__version__} (commit {head}{suffix})\n"


def test_version_through_main(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"tfpolicy, version {__version__} (commit ") and out.endswith(")\n")


def test_a_tree_that_is_no_checkout_top_has_no_commit(tmp_path: Path) -> None:
    assert git_commit(tmp_path) is None  # no repository at all
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    assert _git("init", "-q", str(repo), cwd=tmp_path).returncode == 0
    assert git_commit(repo) is None  # a repository without a commit
    (repo / "a").write_text("1\n")
    _git("add", "a", cwd=repo)
    done = _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a", cwd=repo)
    assert done.returncode == 0, done.stderr
    head = _git("rev-parse", "HEAD", cwd=repo).stdout.strip()
    assert git_commit(repo) == head
    assert git_commit(repo / "sub") is None  # an unpacked sdist inside someone's repository
    (repo / "a").write_text("2\n")
    assert git_commit(repo) == f"{head}+modified"
