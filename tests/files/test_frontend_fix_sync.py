"""``fix`` makes its writes durable with one flush per run, not one fsync per file.

The whole command runs in-process (``tfpolicy.cli.main``) with ``syncfs``,
``os.sync`` and ``os.fsync`` counted; the kill -9 loop in ``test_repo_fix.py``
checks the other half of the promise (a killed run leaves each file old or new).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.yamlio.test_frontend_validate import GPU as VALIDATED_GPU
from tfpolicy.cli import main
from tfpolicy.files import output

# The GPU Deployment of the validation tests, one per file under its own name.
GPU = VALIDATED_GPU.replace("name: infer\n", "name: infer-{n}\n", 1)


def _six_files(tmp_path: Path) -> list[str]:
    """Six GPU workloads in two folders, named relative to ``tmp_path``."""
    names = []
    for index in range(6):
        folder = tmp_path / "ab"[index % 2]
        folder.mkdir(exist_ok=True)
        (folder / f"w{index}.yaml").write_text(GPU.format(n=index), encoding="utf-8")
        names.append(f"{'ab'[index % 2]}/w{index}.yaml")
    return names


def _counted(monkeypatch: pytest.MonkeyPatch, syncfs_result: int | None = None,
             ) -> Counter[str]:
    """``syncfs``, ``os.sync`` and ``os.fsync`` counted (each still done); ``syncfs``
    made to fail when ``syncfs_result`` is given."""
    calls: Counter[str] = Counter()
    real_syncfs, real_sync, real_fsync = output._syncfs, os.sync, os.fsync
    assert real_syncfs is not None, "glibc has syncfs on every Linux this runs on"

    def syncfs(fd: int) -> int:
        calls["syncfs"] += 1
        return real_syncfs(fd) if syncfs_result is None else syncfs_result

    def sync() -> None:
        calls["sync"] += 1
        real_sync()

    def fsync(fd: Any) -> None:
        calls["fsync"] += 1
        real_fsync(fd)

    monkeypatch.setattr(output, "_syncfs", syncfs)
    monkeypatch.setattr(os, "sync", sync)
    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_one_syncfs_for_all_files_and_one_fsync_per_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = _six_files(tmp_path)
    calls = _counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    code = main(["fix", "-p", "takeover", *names])
    assert code == 1  # files changed
    assert all('tensor-fusion.ai/enabled: "true"' in (tmp_path / n).read_text() for n in names)
    # Both folders are on one file system: one syncfs, no system-wide sync.
    assert calls == Counter(syncfs=1, fsync=2)  # the two folders, once each


def test_a_failing_syncfs_falls_back_to_one_sync(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    names = _six_files(tmp_path)
    calls = _counted(monkeypatch, syncfs_result=-1)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "-p", "takeover", *names]) == 1
    assert calls == Counter(syncfs=1, sync=1, fsync=2)
    assert all('tensor-fusion.ai/enabled: "true"' in (tmp_path / n).read_text() for n in names)


def test_flush_takes_one_syncfs_per_file_system(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders on two devices get one syncfs each; a folder gone meanwhile is passed over."""
    calls = _counted(monkeypatch)
    folders = {tmp_path / "a", tmp_path / "b", Path("/proc/self"), tmp_path / "gone"}
    for folder in (tmp_path / "a", tmp_path / "b"):
        folder.mkdir()
    output.flush(folders)
    assert calls == Counter(syncfs=2)  # tmp_path's file system and /proc


def test_nothing_to_change_syncs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         ) -> None:
    (tmp_path / "c.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    calls = _counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "-p", "takeover", "c.yaml"]) == 0
    assert calls == Counter()
