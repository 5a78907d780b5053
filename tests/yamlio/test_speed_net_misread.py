"""A misreading by the fast reader never reaches a rewrite, even where the edits remove it.

The read back holds a new text against the reading the edits were planned on, plus the
edits. Were that reading rapidyaml's and wrong inside a block the edits remove, the new
text would read back "right" without the misread bytes. So libyaml reads the input of
every rewrite too, and the document is planned on libyaml's data when they differ.

The allow-list is opened on purpose through its seam (``fast.declined``), so that
rapidyaml reads a NEL in a comment, which libyaml takes for a line break: the key after
it is a comment to rapidyaml and data to libyaml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfpolicy.cli import main
from tfpolicy.yamlio import fast

HIDDEN_MEMORY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w\nspec:\n  template:\n"
    "    spec:\n      containers:\n      - name: a\n        image: x\n"
    "        resources:\n          limits:\n            nvidia.com/gpu: 2\n"
    "            # c\x85            memory: 8Gi\n"
)
HIDDEN_REQUESTS = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w\nspec:\n  template:\n"
    "    spec:\n      containers:\n      - name: a\n        image: x\n"
    "        resources:\n          limits:\n            nvidia.com/gpu: 2\n"
    "          # c\x85          requests: {nvidia.com/gpu: 2}\n"
    "        env:\n        - {name: A, value: b}\n"
)


def _libyaml(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def _run(command: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, str]:
    monkeypatch.setattr(fast, "declined", lambda _: False)
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    assert fast.read(text) is not None  # the fast reader takes it, and misreads it
    code = main([command, "-p", "rightsize-example", "--jobs", "1", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["apply", "fix"])
def test_a_key_the_fast_reader_missed_in_a_removed_block_is_kept(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before, rightsize removed ``resources`` whole (all rapidyaml saw was the GPU), and
    ``memory: 8Gi`` went with it, exit 0, in no record."""
    assert fast.read(HIDDEN_MEMORY) is None  # the allow-list as shipped: libyaml's
    code, out, err, written = _run(command, HIDDEN_MEMORY, tmp_path, monkeypatch, capsys)
    assert code == (0 if command == "apply" else 1), err
    template = _libyaml(out if command == "apply" else written)["spec"]["template"]
    assert template["spec"]["containers"][0]["resources"] == {"limits": {"memory": "8Gi"}}
    record = json.loads(template["metadata"]["annotations"]["tfpolicy.dev/original"])
    assert record["resources"] == {"a": {"limits": {"nvidia.com/gpu": 2}}}


@pytest.mark.parametrize("command", ["apply", "fix"])
def test_gpu_requests_the_fast_reader_missed_are_never_dropped_unrecorded(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before: exit 0, the requests gone with the block and missing from the record, so a
    rollback could not give them back. Now they are removed and recorded as libyaml reads
    them, or the document is refused with one located line and nothing written."""
    code, out, err, written = _run(command, HIDDEN_REQUESTS, tmp_path, monkeypatch, capsys)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith(f"{tmp_path / 'w.yaml'}:1:"), err
        assert out == "" and written == HIDDEN_REQUESTS
        return
    template = _libyaml(out if command == "apply" else written)["spec"]["template"]
    record = json.loads(template["metadata"]["annotations"]["tfpolicy.dev/original"])
    assert record["resources"]["a"]["requests"] == {"nvidia.com/gpu": 2}
