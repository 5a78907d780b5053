"""Where a doc example runs: a scratch copy of the checkout's examples, never the checkout.

The scratch root mirrors the repository's top: ``examples/`` and ``plugins/`` (the
kustomize examples) copied, a ``home/`` of its own, so ``cwd=examples`` in a marker is
the examples folder as a reader of the docs has it. The named setups put the scratch
where the text says the reader stands; ``NEEDS`` is every reason a block may give for
not running here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent  # the installed tfpolicy of this checkout's .venv

NEEDS = {
    "cluster": "a Kubernetes cluster or its Prometheus (kubectl get, helm get values, --live, "
               "--prometheus)",
    "images": "container images built with podman, minutes (tests/images, -m images)",
    "package": "the wheel built and installed (tests/images/test_package.py, -m package)",
    "checkout": "the repository checkout itself: make demo (tests/test_demo.py), make test",
    "kustomize": "the standalone kustomize binary, not installed where the docs are tested",
    "zsh": "zsh, not installed where the docs are tested",
    "fish": "fish, not installed where the docs are tested",
    "registry": "an image registry to push to",
}

# The commit date of the rung, as make demo gives it: the bundled snapshot
# examples/cluster/takeover-1-soaked.yaml was taken after it.
RUNG_DATE = "2026-11-30T08:00:00Z"


def scratch(tmp_path: Path) -> Path:
    root = tmp_path / "scratch"
    shutil.copytree(ROOT / "examples", root / "examples")
    shutil.copytree(ROOT / "plugins", root / "plugins")
    (root / "home").mkdir()
    return root


def env(root: Path) -> dict[str, str]:
    """The reader's shell: this checkout's tfpolicy first on PATH, a home of its own, git
    with no user or system configuration."""
    drop = ("KUSTOMIZE_PLUGIN_HOME", "XDG_CONFIG_HOME", "TFPOLICY_JOBS", "TFPOLICY")
    out = {k: v for k, v in os.environ.items() if k not in drop}
    out.update(PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", HOME=str(root / "home"),
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    for who in ("AUTHOR", "COMMITTER"):
        out[f"GIT_{who}_NAME"] = "docs"
        out[f"GIT_{who}_EMAIL"] = "docs@example.invalid"
    return out


def _git(cwd: Path, environ: dict[str, str]) -> None:
    """A git repository, nothing committed (the example commits)."""
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=cwd, env=environ, check=True)


def _at_takeover_1(cwd: Path, environ: dict[str, str]) -> None:
    """The README's quickstart done: a repository whose ``tfpolicy init`` files name
    takeover-1, its pre-commit hooks installed, its manifests fixed and committed at the
    date make demo gives the rung (so the bundled takeover-1 snapshot is newer)."""
    _git(cwd, environ)
    for args, code in ((["init", "."], 0), (["fix", "manifests"], 1)):
        done = subprocess.run([str(BIN / "tfpolicy"), *args], cwd=cwd, env=environ,
                              capture_output=True, text=True)
        assert done.returncode == code, done.stderr
    subprocess.run([str(BIN / "pre-commit"), "install"], cwd=cwd, env=environ, check=True,
                   capture_output=True)
    dated = dict(environ, GIT_AUTHOR_DATE=RUNG_DATE, GIT_COMMITTER_DATE=RUNG_DATE)
    for args in (["add", "-A"], ["commit", "-qm", "GPU migration: takeover-1"]):
        subprocess.run(["git", *args], cwd=cwd, env=dated, check=True, capture_output=True)


KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: package
pipeline:
  mutators:
    - exec: "tfpolicy krm"
      configPath: migration.yaml
"""

MIGRATION = """\
apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata:
  name: serving-canary
spec:
  stage: takeover
  enabledReplicas: "25%"
"""


def _package(cwd: Path, environ: dict[str, str]) -> None:
    """./package: a kpt package of the bundled manifests, with the Kptfile and the
    migration.yaml docs/hosts.md shows."""
    package = cwd / "package"
    shutil.copytree(ROOT / "examples" / "manifests", package)
    (package / "Kptfile").write_text(KPTFILE)
    (package / "migration.yaml").write_text(MIGRATION)
    (cwd / "migration.yaml").write_text(MIGRATION)
    (cwd / "policy.yaml").write_text(MIGRATION)


SETUPS: dict[str, Callable[[Path, dict[str, str]], None]] = {
    "git": _git,
    "at-takeover-1": _at_takeover_1,
    "package": _package,
}
