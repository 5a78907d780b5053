"""Takeover over real manifests from public repositories (tests/realworld/, SOURCES.md).

An independent walker finds every GPU resource of each document, wherever it
is (in a pod template or not). Through the real CLI, each one must end up
either migrated — some mapping above it carries the ``enabled`` label, as a
pod template's ``metadata.labels`` or a component's own ``labels`` — or
reported: a finding on its object that says why, or the file refused with a
located error. Rollback must then give the manifests back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main

CORPUS = ROOT / "tests" / "realworld"
FILES = sorted(CORPUS.glob("*.yaml"))
GPU_NAMES = ("nvidia.com/gpu", "amd.com/gpu")
ENABLED = "tensor-fusion.ai/enabled"
GpuPath = tuple[Any, ...]


def _gpu_paths(node: Any, path: GpuPath = ()) -> Iterator[GpuPath]:
    """Every GPU resource key, and MPIJob v1alpha1's bare ``spec.gpus`` count."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in GPU_NAMES or (path == ("spec",) and key == "gpus"):
                yield (*path, key)
            else:
                yield from _gpu_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _gpu_paths(value, (*path, index))


def _enabled_above(doc: Any, path: GpuPath) -> bool:
    node = doc
    for key in path:
        if isinstance(node, dict) and _enabled(node):
            return True
        node = node[key]
    return False


def _enabled(node: dict[str, Any]) -> bool:
    meta = node.get("metadata")
    for labels in (node.get("labels"), meta.get("labels") if isinstance(meta, dict) else None):
        if isinstance(labels, dict) and labels.get(ENABLED) == "true":
            return True
    return False


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _docs(text: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def _reported(doc: dict[str, Any], findings: str) -> bool:
    name = (doc.get("metadata") or {}).get("name", "")
    pattern = rf"\] {re.escape(str(doc.get('kind')))}/(\S+/)?{re.escape(name)}: not migrated: "
    return re.search(pattern, findings) is not None


def test_the_corpus_covers_the_kinds() -> None:
    kinds = {d.get("kind") for f in FILES for d in _docs_or_none(f)}
    assert {"InferenceService", "LLMInferenceService", "LLMInferenceServiceConfig",
            "StormService", "RayClusterFleet", "ClusterTrainingRuntime", "TrainJob",
            "Workspace", "Experiment", "MPIJob", "NIMService", "Playground"} <= kinds


def _docs_or_none(file: Path) -> list[Any]:
    try:
        return _docs(file.read_text())
    except yaml.YAMLError:
        return []


def test_every_file_is_listed_in_sources() -> None:
    sources = (CORPUS / "SOURCES.md").read_text()
    for file in FILES:
        assert f"`{file.name}`" in sources, file.name


@pytest.mark.parametrize("file", FILES, ids=[f.name for f in FILES])
def test_every_gpu_pod_shape_is_migrated_or_reported(
        file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    rel = file.relative_to(ROOT).as_posix()
    code, out, err = _run(capsys, "apply", "-p", "takeover", rel)
    if code == 2:  # refused as a whole: one located error, nothing written
        assert out == "" and re.match(rf"{re.escape(rel)}:\d+:\d+: error: ", err), err
        return
    assert code == 0, err
    before, after = _docs(file.read_text()), _docs(out)
    assert len(before) == len(after)
    seen = 0
    for doc, done in zip(before, after, strict=True):
        for path in _gpu_paths(doc):
            seen += 1
            assert _enabled_above(done, path) or _reported(doc, err), (path, err)
    assert seen, "a corpus file without GPU resources tests nothing"


@pytest.mark.parametrize("file", FILES, ids=[f.name for f in FILES])
def test_rollback_gives_the_manifests_back(
        file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    code, out, _ = _run(capsys, "apply", "-p", "takeover", file.relative_to(ROOT).as_posix())
    if code == 2:
        return
    taken = tmp_path / file.name
    taken.write_text(out)
    code, back, err = _run(capsys, "apply", "-p", "rollback", str(taken))
    assert code == 0, err
    assert _docs(back) == _docs(file.read_text())
