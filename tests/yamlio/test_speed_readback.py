"""The read back of a rewritten document is libyaml's, never the fast reading's (issue 24 §1).

The fast reading (rapidyaml) may have read the document the edits were
planned on; the check of the rewrite must not share its view of the bytes.
``reads_back`` says True only when libyaml (load.py's reading, PyYAML's C
loader) reads the text as exactly the intended data, types included.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.yamlio.test_yaml_fast_reader import documents
from tfpolicy.edits import same
from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio import fast, goyaml, readback, screen
from tfpolicy.yamlio.construct import Loader
from tfpolicy.yamlio.faithful import reads_back
from tfpolicy.yamlio.load import parse_with_libyaml


def _libyaml(text: str) -> Any:
    try:
        return parse_with_libyaml(text, file="x").data
    except TfpolicyError:
        return TfpolicyError


def _variants(data: Any) -> list[Any]:
    """The data itself and near misses: each scalar retyped or respelled, each mapping
    with a key dropped."""
    out = [data]
    if isinstance(data, dict):
        for key, value in data.items():
            out.append({k: v for k, v in data.items() if k != key})
            out += [{**data, key: v} for v in _variants(value)[1:]]
    elif isinstance(data, list):
        for index, value in enumerate(data):
            out += [[*data[:index], v, *data[index + 1:]] for v in _variants(value)[1:]]
    elif isinstance(data, bool):
        out += [int(data), str(data).lower()]
    elif isinstance(data, int):
        out += [float(data), str(data), bool(data)]
    elif isinstance(data, float):
        out += [str(data), data + 1]
        out += [int(data)] if data.is_integer() else []
    elif isinstance(data, str):
        out += [data + " ", data.replace(" ", ""), data.replace("\n", ""), None]
    elif data is None:
        out += ["", "null", "~"]
    return out


@settings(max_examples=300, deadline=None, derandomize=True)
@given(documents())
def test_what_the_read_back_accepts_libyaml_reads_alike(text: str) -> None:
    slow = _libyaml(text)
    if slow is TfpolicyError or not isinstance(slow, dict):
        return
    assert reads_back(text, text, slow, "f")
    for intended in _variants(slow)[1:]:
        assert reads_back(text, text, intended, "f") == same(slow, intended), (text, intended)


def test_the_read_back_never_asks_the_fast_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the read back used the fast reading")

    monkeypatch.setattr(fast, "read", refuse)
    monkeypatch.setattr(screen, "cleared", refuse)
    assert reads_back("a: 1\nb: x\n", "a: 1\n", {"a": 1, "b": "x"}, "f")


def test_a_line_break_only_libyaml_knows_is_seen() -> None:
    """NEL in a comment ends it for libyaml: the key after it is data, and the text does not
    read back as the data without it."""
    text = "a: 1\n# note\x85b: 2\n"
    assert not reads_back(text, "a: 1\n", {"a": 1}, "f")
    assert reads_back(text, "a: 1\n", {"a": 1, "b": 2}, "f")


def test_equal_data_is_accepted_and_near_misses_are_not() -> None:
    text = "a: 1\nb: 'x y'\nc:\n- true\n- |\n  l1\n  l2\nd: {e: 2.5}\n"
    data = {"a": 1, "b": "x y", "c": [True, "l1\nl2\n"], "d": {"e": 2.5}}
    assert reads_back(text, text, data, "f")
    assert not reads_back(text, text, {**data, "a": 1.0}, "f")
    assert not reads_back(text, text, {**data, "a": "1"}, "f")
    assert not reads_back(text, text, {**data, "b": "xy"}, "f")  # spaces inside strings stay
    assert not reads_back(text, text, {**data, "c": [True, "l1l2\n"]}, "f")


def test_yaml_1_1_types_and_repeated_keys_are_libyamls() -> None:
    assert not reads_back("a: yes\n", "a: x\n", {"a": "yes"}, "f")
    assert reads_back("a: yes\n", "a: x\n", {"a": True}, "f")
    assert not reads_back("a: ~\n", "a: x\n", {"a": "~"}, "f")
    assert not reads_back("a: 1\na: 1\n", "a: 1\n", {"a": 1}, "f")
    assert reads_back("b: 1\na: 2\n", "b: 1\n", {"a": 2, "b": 1}, "f")  # order is layout
    assert not reads_back('"1": x\n', "a: 1\n", {1: "x"}, "f")


def test_what_libyaml_refuses_never_reads_back() -> None:
    assert not reads_back("a: & x\n", "a: 1\n", {"a": "& x"}, "f")
    assert not reads_back("a:\t2\nb: 1\n\t\n", "a: 1\n", {"a": 2, "b": 1}, "f")
    assert not reads_back('a: "\\ud83d\\ude00"\n', "a: 1\n", {"a": "\U0001f600"}, "f")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet="0123456789.-+eE_:xonyYNOTtrufalsFL~=<", max_size=8)
                | st.text(max_size=80).map(lambda t: [t]), max_size=40).map(
                    lambda parts: [p for part in parts for p in (part if isinstance(part, list)
                                                                   else [part])]))
def test_a_remembered_plain_tag_is_the_resolvers_own(texts: list[str]) -> None:
    """The walk remembers the tag of short plain texts; a remembered answer is the one the
    loader's resolver gives, whatever came before, and the memory stays bounded."""
    for text in texts + texts:
        assert readback._plain_tag(text) == goyaml.plain_tag(text)
        assert readback._plain_tag(text) == _loaders_tag(text)
    assert len(readback._PLAIN_TAGS) <= readback._PLAIN_TAGS_MAX
    assert all(len(t) <= readback._REMEMBERED_CHARS for t in readback._PLAIN_TAGS)


def _loaders_tag(text: str) -> str:
    """The tag the loader's own resolver gives ``text`` as a plain scalar."""
    loader = Loader("")
    try:
        tag: str = loader.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    finally:
        loader.dispose()
    return tag
