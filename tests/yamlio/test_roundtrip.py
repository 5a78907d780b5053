"""The round-trip contract on the corpus of tricky layouts (STYLE §8).

Untouched documents keep their bytes; edited ones equal the data-level
application of the same edits, keep every comment, and re-applying is a
no-op.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, run
from tfpolicy import yamlio
from tfpolicy.edits import apply_edits

CORPUS = sorted((ROOT / "tests" / "corpus" / "roundtrip").glob("*.yaml"))
STAGES = ["takeover", "takeover-25", "rightsize-example", "autoscale"]


def _docs(text: str) -> list[object]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def _comments(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
@pytest.mark.parametrize("stage", STAGES)
def test_edited_documents_equal_the_planned_edits(path: Path, stage: str, builtin) -> None:
    text = path.read_bytes().decode("utf-8")
    result = run(text, builtin[stage], path.name)
    assert result.changes, "every corpus file holds a GPU workload"
    expected = []
    for raw in yamlio.split_documents(text):
        parsed = yamlio.parse_document(raw.text, file=path.name)
        if parsed.data is None:
            continue
        lines = len(re.findall(r"\r\n|\r|\n", raw.text))  # a lone CR ends a line too
        mine = [e for c in result.changes for e in c.edits
                if c.line >= raw.line and c.line < raw.line + lines + 1]
        expected.append(apply_edits(parsed.data, mine))
    assert _docs(result.text) == expected


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
@pytest.mark.parametrize("stage", STAGES)
def test_untouched_documents_keep_their_bytes(path: Path, stage: str, builtin) -> None:
    text = path.read_bytes().decode("utf-8")
    before = yamlio.split_documents(text)
    after = yamlio.split_documents(run(text, builtin[stage], path.name).text)
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        if yaml.safe_load(old.text) == yaml.safe_load(new.text):
            assert old.text == new.text


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
@pytest.mark.parametrize("stage", STAGES)
def test_comments_line_endings_and_idempotence(path: Path, stage: str, builtin) -> None:
    text = path.read_bytes().decode("utf-8")
    out = run(text, builtin[stage], path.name).text
    for comment in _comments(text):
        assert comment in _comments(out)
    assert ("\r\n" in text) == ("\r\n" in out)
    if "\r\n" in text:
        assert "\n" not in out.replace("\r\n", "")
    assert run(out, builtin[stage], path.name).text == out


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
@pytest.mark.parametrize("stage", STAGES)
def test_rollback_restores_the_data(path: Path, stage: str, builtin) -> None:
    text = path.read_bytes().decode("utf-8")
    out = run(text, builtin[stage], path.name).text
    assert _docs(run(out, builtin["rollback"], path.name).text) == _docs(text)


def test_json_manifests_stay_json(builtin) -> None:
    original = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "j"},
                "spec": {"template": {"spec": {"containers": [
                    {"name": "main", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}
    text = json.dumps(original, indent=4).replace("\n", "\r\n") + "\r\n"
    for stage in STAGES:
        out = run(text, builtin[stage], "d.json").text
        staged = json.loads(out)
        assert staged["spec"]["template"]["metadata"]["labels"] == {"tensor-fusion.ai/enabled": "true"}
        assert out.startswith('{\r\n    "apiVersion"') and out.endswith("}\r\n")
        assert json.loads(run(out, builtin["rollback"], "d.json").text) == original
