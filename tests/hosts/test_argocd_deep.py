"""``argocd generate`` over a repository nested a thousand folders deep: the check for
symlinks that leave the repository (argoproj/argo-cd util/io/files/tar.go,
``CheckOutOfBoundsSymlinks``) walks the whole tree without recursing, where ``os.walk``
ran out of Python's recursion limit (exit 3); and it still finds a link at the bottom."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hostlib import EXAMPLES, host_env, run

from tests.files.test_files_deep_tree import DEPTH, _nest, _unnest

GENERATE = ["tfpolicy", "argocd", "generate"]


def _app(tmp: Path) -> Path:
    """An app folder holding a manifest and, below it, a folder nested DEPTH deep."""
    app = tmp / "repo" / "apps" / "gpu"
    app.mkdir(parents=True)
    shutil.copyfile(EXAMPLES / "llm-server.yaml", app / "llm-server.yaml")
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    (app / "deep").mkdir()
    _nest(app / "deep", DEPTH)
    return app


def _generate(app: Path) -> tuple[int, str, str]:
    env = host_env(ARGOCD_APP_NAME="gpu", ARGOCD_APP_NAMESPACE="ml-serving",
                   ARGOCD_APP_SOURCE_PATH="apps/gpu")
    done = run(GENERATE, app, env)
    return done.returncode, done.stdout, done.stderr


def test_a_deep_app_folder_renders(tmp_path: Path) -> None:
    app = _app(tmp_path)
    try:
        code, out, err = _generate(app)
        assert code == 0, err[-500:]
        assert "tensor-fusion.ai/enabled" in out
    finally:
        _unnest(app / "deep")


def test_a_link_leaving_the_repository_at_the_bottom_is_refused(tmp_path: Path) -> None:
    app = _app(tmp_path)
    bottom = os.open(app / "deep", os.O_RDONLY)
    try:
        for _ in range(DEPTH):  # down a level at a time: no path longer than one name
            below = os.open("d", os.O_RDONLY, dir_fd=bottom)
            os.close(bottom)
            bottom = below
        os.symlink("/etc/hostname", "leak.yaml", dir_fd=bottom)
        code, out, err = _generate(app)
        assert (code, out) == (2, ""), err[-500:]
        line, = err.splitlines()
        assert line.startswith("deep/" + "d/" * DEPTH + "leak.yaml: error: a symlink that "
                               "leaves the repository"), line[-300:]
    finally:
        os.unlink("leak.yaml", dir_fd=bottom)
        os.close(bottom)
        _unnest(app / "deep")
