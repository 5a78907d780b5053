"""What the pre-commit tests share: the hook repository and pre-commit's cache, once a session.

try-repo and a commit's hook install the hook repo with pip from a clone at a
commit, so the working tree is first snapshot into a throw-away git repo;
pip runs once per session (``PRE_COMMIT_HOME`` is shared).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hostlib import ROOT, git, host_env


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working tree's files (tracked and new, not ignored) committed in a fresh repo."""
    dest = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source, target = ROOT / name, dest / name
        if source.is_symlink() or source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "snapshot")
    return dest


@pytest.fixture(scope="session")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return host_env(PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")))
