"""The read back's JSON comparison says "reads as intended" only when the full check would.

``fast.surely_reads_as`` compares rapidyaml's JSON of a rewritten document
with ``json.dumps`` of the intended data; when it says True, the document
must read (by libyaml, the authority) as exactly that data, types included.
When it says False the full check runs, so False is always safe; True must
never be wrong.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from tests.test_yaml_fast_reader import documents
from tfpolicy.errors import TfpolicyError
from tfpolicy.rewrite.edits import Edit, Op
from tfpolicy.yamlio.fast import surely_reads_as
from tfpolicy.yamlio.load import parse_with_libyaml
from tfpolicy.yamlio.verify import _string_keys, reads_back, same


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


@settings(max_examples=300, deadline=None)
@given(documents())
def test_what_the_json_comparison_accepts_libyaml_reads_alike(text: str) -> None:
    slow = _libyaml(text)
    if slow is TfpolicyError or not isinstance(slow, dict):
        return
    for intended in _variants(slow):
        if surely_reads_as(text, intended, ""):
            assert same(slow, intended), (text, intended)


def test_equal_data_is_accepted_and_near_misses_are_not() -> None:
    text = "a: 1\nb: 'x y'\nc:\n- true\n- |\n  l1\n  l2\nd: {e: 2.5}\n"
    data = {"a": 1, "b": "x y", "c": [True, "l1\nl2\n"], "d": {"e": 2.5}}
    assert surely_reads_as(text, data, "")
    assert not surely_reads_as(text, {**data, "a": 1.0}, "")
    assert not surely_reads_as(text, {**data, "a": "1"}, "")
    assert not surely_reads_as(text, {**data, "b": "xy"}, "")  # spaces inside strings stay
    assert not surely_reads_as(text, {**data, "c": [True, "l1l2\n"]}, "")


def test_a_line_break_inside_a_string_is_not_taken_for_layout() -> None:
    assert surely_reads_as('a: "x\\n  y"\n', {"a": "x\n  y"}, "")
    assert not surely_reads_as('a: "x\\n  y"\n', {"a": "xy"}, "")
    assert not surely_reads_as("a: 'x\n\n  y'\n", {"a": "xy"}, "")


def test_a_repeated_key_is_never_accepted() -> None:
    assert not surely_reads_as("a: 1\na: 1\n", {"a": 1}, "")
    assert not reads_back("a: 1\na: 1\n", "a: 1\n", {"a": 1}, "f", keyed=True)


def test_another_key_order_is_left_to_the_full_check() -> None:
    assert not surely_reads_as("b: 1\na: 2\n", {"a": 2, "b": 1}, "")
    assert reads_back("b: 1\na: 2\n", "b: 1\n", {"a": 2, "b": 1}, "f", keyed=True)


def test_scalars_yaml_types_otherwise_are_left_to_the_full_check() -> None:
    assert not surely_reads_as("a: yes\n", {"a": "yes"}, "")
    assert not reads_back("a: yes\n", "a: x\n", {"a": "yes"}, "f", keyed=True)
    assert not surely_reads_as("a: ~\n", {"a": "~"}, "")


def test_only_string_keys_take_the_json_comparison() -> None:
    intended = {"a": {1: "x"}, "b": ["y"]}
    assert not _string_keys(intended, [Edit(Op.SET, ("a",), {1: "x"})])
    assert not _string_keys({"a": {1: "x"}}, [Edit(Op.SET, ("a", 1), "x")])
    assert _string_keys(intended, [Edit(Op.SET, ("b", 0), "y")])
    assert _string_keys({"a": {}}, [Edit(Op.REMOVE, ("a", "gone"))])
    # json.dumps writes the key 1 as "1": the comparison alone would accept it.
    assert surely_reads_as('"1": x\n', {1: "x"}, "")
