"""A real git repository in a temporary folder, on the first rung, and the cluster snapshots
of verify's tests (``tests/verify/build_snapshots.py``) taken at a given hour."""

from __future__ import annotations

import copy
import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
VERIFY = ROOT / "tests" / "verify"
INVENTORY = ROOT / "tests" / "promote" / "inventory.yaml"
CONFIG = "# The migration's rung; `tfpolicy promote` moves it.\npolicies: [takeover-1]  # rung\n"
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"]


def builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_snapshots",
                                                  VERIFY / "build_snapshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SNAPSHOTS = builder()


def at_hour(items: list[dict[str, Any]], hour: int, folder: Path, name: str) -> str:
    """The snapshot as kubectl prints it, every time moved from 09:xx to ``hour``:xx."""
    text = SNAPSHOTS.as_list(items).replace("2026-11-30T09:", f"2026-11-30T{hour:02d}:")
    path = folder / f"{name}-{hour:02d}.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def capped() -> list[dict[str, Any]]:
    """Steps 01–03 of a 2-replica Deployment: one TensorFusion pod, one native over the cap."""
    return list(SNAPSHOTS.capped())


def clean() -> list[dict[str, Any]]:
    """Step 04: every replica taken over."""
    return list(SNAPSHOTS.clean())


def young(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same pods, ready since xx:15 only: five minutes before the snapshot's xx:20."""
    items = copy.deepcopy(items)
    for item in items:
        for condition in (item.get("status") or {}).get("conditions") or []:
            if item["kind"] == "Pod" and condition["type"] in ("Ready", "ContainersReady"):
                condition["lastTransitionTime"] = "2026-11-30T09:15:00Z"
    return items


def crashing(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The vllm TensorFusion pod crash-looping: a stop."""
    items = copy.deepcopy(items)
    items[0] = SNAPSHOTS.crash_looping(items[0])
    return items


class Repo:
    """The repository, and promote run in it through the CLI's entry point."""

    def __init__(self, path: Path, monkeypatch: pytest.MonkeyPatch,
                 rung: str = "takeover-1") -> None:
        self.path = path
        self.monkeypatch = monkeypatch
        (path / "manifests").mkdir(parents=True)
        shutil.copy(VERIFY / "manifests.yaml", path / "manifests" / "serving.yaml")
        (path / ".tfpolicy.yaml").write_text(CONFIG.replace("takeover-1", rung),
                                             encoding="utf-8")
        self.git("init", "-q", "-b", "main")
        monkeypatch.chdir(path)
        assert main(["fix", "manifests"]) == 1
        self.commit_all(f"GPU migration: {rung}", hour=8)

    def git(self, *args: str, hour: int | None = None) -> str:
        env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": _path()}
        if hour is not None:
            env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = _date(hour)
        done = subprocess.run([*GIT, *args], cwd=self.path, env=env, capture_output=True,
                              text=True, check=True)
        return done.stdout

    def commit_all(self, message: str, hour: int) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, hour=hour)

    def promote(self, *args: str, hour: int, inventory: Path = INVENTORY) -> int:
        """``tfpolicy promote`` with git's identity and date (its commit at ``hour``:30)."""
        for name in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
            self.monkeypatch.setenv(name, "Promoter")
        for name in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
            self.monkeypatch.setenv(name, "promoter@example.com")
        for name in ("GIT_COMMITTER_DATE", "GIT_AUTHOR_DATE"):
            self.monkeypatch.setenv(name, _date(hour, 30))
        self.monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
        self.monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        return main(["promote", "--inventory", str(inventory), *args, "manifests"])

    @property
    def rung(self) -> str:
        return (self.path / ".tfpolicy.yaml").read_text(encoding="utf-8")

    def log(self) -> list[str]:
        return self.git("log", "--format=%s").splitlines()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def status(self) -> str:
        return self.git("status", "--porcelain", "--untracked-files=all")


def _date(hour: int, minute: int = 0) -> str:
    return f"2026-11-30T{hour:02d}:{minute:02d}:00+00:00"


def _path() -> str:
    import os

    return os.environ.get("PATH", "")


def before_takeover() -> list[dict[str, Any]]:
    """The cluster before any takeover: every pod on the device plugin, the operator idle."""
    b = SNAPSHOTS
    old = ("ReplicaSet", b.OLD)
    return [b.pod(f"{b.OLD}-h5n2c", "vllm", old, tf=False, gpu_index=None),
            b.pod(f"{b.OLD}-m3v8t", "vllm", old, tf=False, gpu_index=None),
            b.pod("trainer-0", "trainer", b.TRAINER, tf=False, gpu_index=None),
            b.replicaset(b.OLD, 1, 2, False), b.gpupool(), b.gpunode(0),
            *(b.device_plugin_gpu(i) for i in range(3)), b.gpu(3, False)]
