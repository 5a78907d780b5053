"""The fast reading (rapidyaml) never reads a document otherwise than libyaml does.

``fast.read`` may decline any document; when it reads one, its data must
equal libyaml's reading exactly, types included, and a document libyaml
refuses must be declined. Checked on drawn documents full of scalars the
two YAML versions type differently, and on every YAML file of the tests.
Positions (rnodes.py) are checked by rewriting each GPU document both ways:
the texts must be the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, policy_set
from tfpolicy.edits import Edit, same
from tfpolicy.errors import TfpolicyError
from tfpolicy.rewrite.engine import DocContext, plan_document
from tfpolicy.yamlio import RawDoc, allow, split_documents
from tfpolicy.yamlio.faithful import first_faithful
from tfpolicy.yamlio.fast import read
from tfpolicy.yamlio.load import parse_document, parse_with_libyaml
from tfpolicy.yamlio.rnodes import Mapping

TESTS = ROOT / "tests"
# Plain scalars YAML 1.1 (libyaml's resolver) and JSON-minded readers disagree on.
TOKENS = ["yes", "No", "on", "OFF", "y", "n", "True", "TRUE", "true", "false", "False", "null",
          "Null", "NULL", "~", "0", "-0", "07", "08", "0x1F", "0b101", "0o17", "1_000", "1:30",
          "1:30.5", "190:20:30", ".inf", "-.Inf", ".NaN", "1.", "1.5", ".5", "-.5", "1e3",
          "1.5e+3", "1.5E-3", "+1", "+1.5", "8080", "123456789012345678901234567890",
          "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "1.2.3", "v1", "500m", "2Gi",
          "0.0", "-1.0", "00", "1__0", "0.", "-", "a b", "x: y"]
SCALARS = st.one_of(
    st.sampled_from(TOKENS),
    st.sampled_from(TOKENS).map(lambda t: f"'{t}'"),
    st.sampled_from(TOKENS).map(lambda t: f'"{t}"'),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6)
    .map(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'),
)


@st.composite
def documents(draw: Any) -> str:
    lines = []
    for i in range(draw(st.integers(1, 6))):
        key = draw(st.one_of(st.just(f"k{i}"), st.sampled_from(TOKENS)))
        shape = draw(st.sampled_from(["scalar", "map", "seq", "flow", "block"]))
        if shape == "scalar":
            lines.append(f"{key}: {draw(SCALARS)}")
        elif shape == "map":
            lines.append(f"{key}:")
            lines += [f"  {draw(SCALARS)}: {draw(SCALARS)}" for _ in range(draw(st.integers(1, 3)))]
        elif shape == "seq":
            lines.append(f"{key}:")
            lines += [f"- {draw(SCALARS)}" for _ in range(draw(st.integers(1, 3)))]
        elif shape == "flow":
            items = ", ".join(draw(st.lists(SCALARS, max_size=3)))
            lines.append(f"{key}: [{items}]")
        else:
            lines.append(f"{key}: {draw(st.sampled_from(['|', '>', '|-', '>+', '|2']))}")
            lines += [f"  {draw(st.sampled_from(TOKENS))}" for _ in range(draw(st.integers(1, 3)))]
    return "\n".join(lines) + "\n"


def _agree(text: str) -> None:
    quick = read(text)
    if quick is None:
        return
    try:
        slow = parse_with_libyaml(text, file="x").data
    except TfpolicyError as exc:
        raise AssertionError(f"rapidyaml read what libyaml refuses: {exc}") from None
    assert same(quick.data, slow), (quick.data, slow)


def test_every_disputed_token_is_read_alike_wherever_it_stands() -> None:
    for token in TOKENS:
        for text in (f"k: {token}\n", f"{token}: v\n", f"k:\n- {token}\n", f"k: [a, {token}]\n",
                     f"k: {{a: {token}}}\n", f"k:   {token}   # c\n"):
            _agree(text)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(documents())
def test_the_fast_reading_is_libyamls_reading(text: str) -> None:
    _agree(text)


def _documents() -> Iterator[tuple[Path, RawDoc]]:
    """Every document of every YAML file of the tests."""
    for path in sorted(TESTS.rglob("*.y*ml")):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        yield from ((path, raw) for raw in split_documents(text))


def test_the_fast_reading_agrees_on_every_yaml_file_of_the_tests() -> None:
    read_fast = 0
    for _, raw in _documents():
        _agree(raw.text)
        read_fast += read(raw.text) is not None
    assert read_fast > 500  # the check is not vacuous: most real documents are read fast


def test_positions_give_the_same_rewrite_as_libyamls_marks() -> None:
    policies = policy_set("takeover")
    rewritten = 0
    for path, raw in _documents():
        edits = _edits(raw.text, policies)
        if not edits:
            continue
        fast = parse_document(raw.text, file="x")
        slow = parse_with_libyaml(raw.text, file="x")
        quick = first_faithful(raw, fast, edits, "x", quick=True)
        if quick is not None:
            assert quick == first_faithful(raw, slow, edits, "x"), path
            rewritten += 1
    assert rewritten > 50


def _edits(text: str, policies: Any) -> list[Edit]:
    try:
        parsed = parse_document(text, file="x")
    except TfpolicyError:
        return []
    if not isinstance(parsed.node, Mapping):
        return []
    ctx = DocContext("x", 0, lambda path: (0, 0), "default", False)
    try:
        return plan_document(parsed.data, policies, ctx).edits
    except TfpolicyError:
        return []


def test_a_closing_bracket_with_text_after_it_goes_to_libyaml() -> None:
    """libyaml refuses a flow collection with a word after it (``{a: (b} exec serve``,
    ``[{a: b} c]``), which rapidyaml reads on; a complex key (``{a: b}: c``) is libyaml's
    too. Such a line is never the fast path's."""
    block = ("spec:\n  containers:\n  - name: main\n    command:\n    - |\n"
             "      echo start\n     {line}\n    image: x\n")
    for line, refused in (("{a: (b} exec serve", True), ("[{a: b} c]", True),
                          ("{a: b}: c", False)):
        text = block.replace("{line}", line) if refused else f"x: 1\n{line}\n"
        assert allow.declined(text), line
        if refused:
            with pytest.raises(yaml.YAMLError):
                yaml.load(text, Loader=yaml.CSafeLoader)
    assert not allow.declined("x: {a: b, c: d}\n")
