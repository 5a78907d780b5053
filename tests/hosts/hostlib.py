"""Helpers for the host tests: the installed ``tfpolicy``, the real host programs, example files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TFPOLICY = BIN / "tfpolicy"
EXAMPLES = ROOT / "examples" / "manifests"


def host_env(**extra: str) -> dict[str, str]:
    """The environment a host gives its plugin: ours, with this venv's ``tfpolicy`` on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def need(tool: str) -> str:
    """The path of a host program the test drives; missing is a failure, never a skip."""
    found = shutil.which(tool)
    if found is None:
        pytest.fail(f"{tool} is not installed; the host tests run the real {tool}")
    return found


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env or host_env(), input=stdin, text=True,
                          capture_output=True, timeout=300, check=False)


def tfpolicy(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run([str(TFPOLICY), *args], cwd, stdin=stdin)


def copy_examples(dest: Path, *names: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(EXAMPLES / name, dest / name)
    return dest


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".git" not in p.parts}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


def hooked_repo(tmp: Path, hook_repo: Path, env: dict[str, str], hooks: tuple[str, ...],
                files: dict[str, str], args: str = "") -> Path:
    """A committed manifest repository whose commits run ``hooks`` of ``hook_repo``
    (installed with ``pre-commit install``, not tried); a text ``@NAME`` is that example."""
    repo = tmp / "repo"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("@"):
            shutil.copyfile(EXAMPLES / text[1:], repo / name)
        else:
            (repo / name).write_text(text)
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    listed = "".join(f"      - id: {hook}{args}\n" for hook in hooks)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n{listed}")
    git(repo, "init", "-q")
    done = run([str(BIN / "pre-commit"), "install"], repo, env)
    assert done.returncode == 0, done.stdout + done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "manifests", "--no-verify")
    return repo
