"""Render an ArgoCD app folder the way the repo-server would, for the CMP ``generate``.

``kustomization.yaml`` → ``kustomize build`` (standalone when installed,
else ``kubectl kustomize``); ``Chart.yaml`` → ``helm template`` with the
app's name and namespace; otherwise the folder's own manifest files (not
recursive, like an Argo directory source's default). A render tool's
failure is a one-line error: a silent empty render would prune the app
(reference/hosts.md §3.3, §7.1).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.sources import MANIFEST_SUFFIXES, inside, read_text

KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")


@dataclass(frozen=True, slots=True)
class Source:
    name: str  # a file, or the render command, for messages
    text: str


def render(folder: Path, env: Mapping[str, str]) -> list[Source]:
    if any((folder / name).is_file() for name in KUSTOMIZATIONS):
        return [_run(_kustomize(), folder)]
    if (folder / "Chart.yaml").is_file():
        return [_run(_helm(env), folder)]
    return [Source(str(f.relative_to(folder)), read_text(str(f))) for f in _manifests(folder)]


def check_links(folder: Path, root: Path) -> None:
    """Refuse a symlink in the repository that resolves outside it, as ArgoCD does.

    The repo-server rejects such repositories (``CheckOutOfBoundsSymlinks``,
    hosts.md §3.3); a render that followed one would publish a file of the
    sidecar (a token, a Secret) as a manifest.
    """
    top = root.resolve()
    for current, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f != ".git")
        for name in sorted(folders + files):
            path = Path(current, name)
            if path.is_symlink() and not inside(path, top):
                shown = os.path.relpath(path, folder)
                raise TfpolicyError("a symlink that leaves the repository: ArgoCD refuses "
                                    "these, and so does tfpolicy", file=shown)


def _manifests(folder: Path) -> list[Path]:
    return sorted(f for f in folder.iterdir()
                  if f.is_file() and f.suffix in MANIFEST_SUFFIXES and not f.name.startswith("."))


def _kustomize() -> list[str]:
    if shutil.which("kustomize"):
        return ["kustomize", "build", "."]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize", "."]
    raise TfpolicyError("kustomization.yaml found, but neither kustomize nor kubectl is installed")


def _helm(env: Mapping[str, str]) -> list[str]:
    if not shutil.which("helm"):
        raise TfpolicyError("Chart.yaml found, but helm is not installed in the plugin sidecar")
    command = ["helm", "template", env.get("ARGOCD_APP_NAME") or "release", "."]
    if env.get("ARGOCD_APP_NAMESPACE"):
        command += ["--namespace", env["ARGOCD_APP_NAMESPACE"]]
    if env.get("KUBE_VERSION"):
        command += ["--kube-version", env["KUBE_VERSION"]]
    return command


def _run(command: list[str], folder: Path) -> Source:
    shown = " ".join(command)
    done = subprocess.run(command, cwd=folder, capture_output=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else "no error message"
        raise TfpolicyError(f"`{shown}` failed (exit {done.returncode}): {reason}")
    return Source(shown, done.stdout.decode("utf-8"))
