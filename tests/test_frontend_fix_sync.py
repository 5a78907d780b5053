"""``fix`` makes its writes durable with one sync per run, not one fsync per file.

The whole command runs in-process (``tfpolicy.cli.main``) with ``os.sync``
and ``os.fsync`` counted; the kill -9 loop in ``test_repo_fix.py`` checks
the other half of the promise (a killed run leaves each file old or new).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.test_frontend_validate import GPU as VALIDATED_GPU
from tfpolicy.cli import main

# The GPU Deployment of the validation tests, one per file under its own name.
GPU = VALIDATED_GPU.replace("name: infer\n", "name: infer-{n}\n", 1)


def test_one_sync_for_all_files_and_one_fsync_per_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = [tmp_path / "a", tmp_path / "b"]
    files = []
    for index in range(6):
        folder = folders[index % 2]
        folder.mkdir(exist_ok=True)
        path = folder / f"w{index}.yaml"
        path.write_text(GPU.format(n=index), encoding="utf-8")
        files.append(path)
    calls: Counter[str] = Counter()
    real_sync, real_fsync = os.sync, os.fsync

    def sync() -> None:
        calls["sync"] += 1
        real_sync()

    def fsync(fd: Any) -> None:
        calls["fsync"] += 1
        real_fsync(fd)

    monkeypatch.setattr(os, "sync", sync)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.chdir(tmp_path)
    code = main(["fix", "-p", "takeover", *(str(p.relative_to(tmp_path)) for p in files)])
    assert code == 1  # files changed
    assert all('tensor-fusion.ai/enabled: "true"' in p.read_text() for p in files)
    assert calls == Counter(sync=1, fsync=2)  # the two folders, once each


def test_nothing_to_change_syncs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         ) -> None:
    (tmp_path / "c.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    calls: Counter[str] = Counter()
    monkeypatch.setattr(os, "sync", lambda: calls.update(["sync"]))
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "-p", "takeover", "c.yaml"]) == 0
    assert calls == Counter()
