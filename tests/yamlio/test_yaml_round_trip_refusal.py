"""The round trip, the last way to write an edited document, refuses what ruamel.yaml cannot
edit instead of failing with a traceback; and only a document that needs it loads it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from ruamel.yaml.error import YAMLError

from tfpolicy.edits import Edit, Op
from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio import faithful, rewrite_document, split_documents
from tfpolicy.yamlio.load import parse_document

DOC = "{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {a: b}}\n"
EDIT = Edit(Op.SET, ("metadata", "labels"), {"team": "ml"})


def _only_the_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    def cannot(*_: object) -> str:
        raise ValueError("not this way")

    monkeypatch.setattr(faithful, "_splice", cannot)


def _rewritten() -> str:
    raw = split_documents(DOC)[0]
    parsed = parse_document(raw.text, file="f.yaml", line=raw.line)
    return rewrite_document(raw, parsed, [EDIT], file="f.yaml")


def test_the_round_trip_writes_what_the_others_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    _only_the_round_trip(monkeypatch)
    text = _rewritten()
    assert parse_document(text, file="f.yaml").data["metadata"] == {
        "name": "x", "labels": {"team": "ml"}}


def test_a_ruamel_error_is_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfpolicy.yamlio import rt

    def fails(*_: object) -> str:
        raise YAMLError("cannot edit this layout")

    _only_the_round_trip(monkeypatch)
    monkeypatch.setattr(rt, "rewrite", fails)
    with pytest.raises(TfpolicyError, match="cannot rewrite this document so that it reads"):
        _rewritten()


def test_a_document_the_splice_writes_does_not_load_ruamel() -> None:
    code = ("import sys\n"
            "from tfpolicy.yamlio import load_rewriter, rewrite_document, split_documents\n"
            "from tfpolicy.yamlio.load import parse_document\n"
            "from tfpolicy.edits import Edit, Op\n"
            "load_rewriter()\n"
            "raw = split_documents('kind: ConfigMap\\nmetadata:\\n  name: x\\n')[0]\n"
            "parsed = parse_document(raw.text, file='f', line=raw.line)\n"
            "edit = Edit(Op.SET, ('metadata', 'labels'), {'team': 'ml'})\n"
            "print(rewrite_document(raw, parsed, [edit], file='f'), end='')\n"
            "print(sorted(m for m in sys.modules if m.startswith('ruamel')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == "kind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    team: ml\n[]\n"
