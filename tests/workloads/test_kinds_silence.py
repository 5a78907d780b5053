"""No GPU request passes in silence (DESIGN §4a): over every real-world file and every golden
case's input, each GPU request a walker of this test's own finds is either migrated or
reported, through the real CLI.

The walker knows nothing of kinds: any ``resources.limits``/``requests`` anywhere in a
document naming an accelerator (by this test's own list of vendor domains). Migrated:
after ``apply -p takeover``, a mapping above the request carries the ``enabled`` label (a
pod template's ``metadata.labels`` or a component's ``labels``). Reported: a finding on
the object whose field is the request's path or one above it. A file refused with a
located error (exit 2) is reported as a whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy.cli import main

FILES = sorted([*(ROOT / "tests" / "realworld").glob("*.yaml"),
                *(ROOT / "tests" / "cases").glob("*/*/input.yaml")])
# Device-plugin resource names by vendor domain, written out here, not read from tfpolicy.
_GPU = re.compile(r"^(nvidia\.com/(gpu|mig-|gpumem|gpucores)|amd\.com/gpu|gpu\.intel\.com/|"
                  r"habana\.ai/|huawei\.com/(Ascend|npu)|cambricon\.com/|metax-tech\.com/|"
                  r"mthreads\.com/|hygon\.com/|aliyun\.com/(gpu|ppu)|aws\.amazon\.com/neuron)")
ENABLED = "tensor-fusion.ai/enabled"
Where = tuple[Any, ...]


def _requests(node: Any, path: Where = ()) -> Iterator[Where]:
    if isinstance(node, dict):
        resources = node.get("resources")
        if isinstance(resources, dict):
            for part in ("limits", "requests"):
                block = resources.get(part)
                if isinstance(block, dict):
                    yield from ((*path, "resources", part, k) for k, v in block.items()
                                if isinstance(k, str) and _GPU.match(k)
                                and v not in (0, "0", None))
        for key, value in node.items():
            yield from _requests(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _requests(value, (*path, index))


def _text(path: Where) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", str(step)):
            out += ("." if out else "") + str(step)
        else:
            out += f"[{step}]"
    return out


def _enabled_above(doc: Any, path: Where) -> bool:
    node = doc
    for key in path:
        if not isinstance(node, dict | list):
            return False
        if isinstance(node, dict):
            meta = node.get("metadata")
            for labels in (node.get("labels"),
                           meta.get("labels") if isinstance(meta, dict) else None):
                if isinstance(labels, dict) and labels.get(ENABLED) == "true":
                    return True
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return False
    return False


def _docs(text: str) -> list[Any]:
    """The manifests (a mapping with apiVersion and kind, DESIGN §2 "What is a manifest")."""
    return [d for d in yaml.safe_load_all(text)
            if isinstance(d, dict) and "apiVersion" in d and "kind" in d]


def _objects(doc: dict[str, Any]) -> Iterator[tuple[Where, dict[str, Any]]]:
    if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        yield from ((("items", i), o) for i, o in enumerate(doc["items"]) if isinstance(o, dict))
    else:
        yield (), doc


def _reported(findings: list[dict[str, Any]], obj: dict[str, Any], where: str) -> bool:
    """A finding on ``obj`` at ``where`` or above it, or an error on it (its pods are then
    not migrated, and the exit code says so)."""
    name = str((obj.get("metadata") or {}).get("name", ""))
    for f in findings:
        ref, field = f.get("resourceRef") or {}, (f.get("field") or {}).get("path", "")
        if ref.get("kind") != obj.get("kind") or ref.get("name") != name:
            continue
        if f["severity"] == "error" or where == field or where.startswith(field + ".") \
                or where.startswith(field + "["):
            return True
    return False


def _loadable(path: Path) -> list[Any] | None:
    try:
        return _docs(path.read_text())
    except yaml.YAMLError:
        return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_gpu_request_is_migrated_or_reported(
        path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _loadable(path)
    capsys.readouterr()
    code = main(["apply", "-p", "takeover", "--format", "json", str(path)])
    out, err = capsys.readouterr()
    if code == 2:  # refused with a located error, nothing written: nothing passes
        located = json.loads(err)
        assert not out and all(int(f["tags"]["line"]) > 0 for f in located), err
        return
    assert before is not None, "not YAML, yet not refused"
    findings = json.loads(err) if err.strip() else []
    after = _docs(out)
    assert len(after) == len(before)
    silent = []
    for old, new in zip(before, after, strict=True):
        for base, obj in _objects(old):
            for request in _requests(obj):
                full = (*base, *request)
                if not (_enabled_above(new, full) or _reported(findings, obj, _text(request))
                        or _reported(findings, obj, _text(full))):
                    silent.append(f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"
                                  f" {_text(full)}")
    assert not silent, silent


def test_the_walk_finds_requests_in_what_it_is_given() -> None:
    """The walker itself finds a request anywhere, and skips a zero."""
    doc = {"spec": {"x": [{"resources": {"limits": {"amd.com/gpu": 1, "nvidia.com/gpu": 0}}}]}}
    assert list(_requests(doc)) == [("spec", "x", 0, "resources", "limits", "amd.com/gpu")]
