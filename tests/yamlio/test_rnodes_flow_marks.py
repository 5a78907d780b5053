"""A flow collection's marks from rapidyaml's tree are libyaml's own, or not given.

rnodes places a flow collection's brackets from its first entry's start and its
last entry's end when only blanks (and a trailing comma) stand between; any
other layout raises ``NeedsLibyaml``. Held against libyaml's marks on drawn
documents wherever the fast reading reads them.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy.yamlio.load import parse_document, parse_with_libyaml
from tfpolicy.yamlio.marks import NeedsLibyaml
from tfpolicy.yamlio.rnodes import Mapping

_BLANK = st.sampled_from(["", " ", "  ", "\t"])
_SCALAR = st.sampled_from(["a", "web", "1", "x-y", "'q'", '"r s"', "true", "", "nvidia.com/gpu"])


def _flow(depth: int) -> st.SearchStrategy[str]:
    item = _SCALAR if depth == 0 else st.one_of(_SCALAR, _flow(depth - 1))
    pair = st.tuples(st.sampled_from(["k", "app", "b", "'c'"]), _BLANK, item)

    def mapping(entries: list[tuple[str, str, str]], pad: str, comma: str) -> str:
        unique = {key: (gap, value) for key, gap, value in entries}
        body = ", ".join(f"{key}:{gap or ' '}{value}" for key, (gap, value) in unique.items())
        return f"{{{pad}{body}{comma}{pad}}}"

    def sequence(items: list[str], pad: str, comma: str) -> str:
        return f"[{pad}{', '.join(items)}{comma}{pad}]"

    return st.one_of(
        st.builds(mapping, st.lists(pair, min_size=1, max_size=3), _BLANK,
                  st.sampled_from(["", ","])),
        st.builds(sequence, st.lists(item.filter(bool), min_size=1, max_size=3), _BLANK,
                  st.sampled_from(["", ","])))


@st.composite
def documents(draw: st.DrawFn) -> str:
    values = draw(st.lists(_flow(2), min_size=1, max_size=4))
    return "".join(f"key{n}: {value}\n" for n, value in enumerate(values))


def _marks(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], Any]) -> None:
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        try:
            out[path] = (node.start_mark.index, node.end_mark.index,
                         node.start_mark.line, node.end_mark.column)
        except NeedsLibyaml:
            out[path] = None
        children = node.value if isinstance(node, yaml.SequenceNode) else \
            [value for _, value in node.value]
        for index, child in enumerate(children):
            _marks(child, (*path, index), out)


_COMPARED = [0]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(documents())
def test_a_flow_collections_marks_are_libyamls_or_none(text: str) -> None:
    fast = parse_document(text, file="x")
    if not isinstance(fast.node, Mapping):
        return  # the fast reading declined it: libyaml's own nodes
    slow = parse_with_libyaml(text, file="x")
    given_marks: dict[tuple[Any, ...], Any] = {}
    libyamls: dict[tuple[Any, ...], Any] = {}
    for n, ((_, fast_value), (_, slow_value)) in enumerate(zip(fast.node.value, slow.node.value,
                                                               strict=True)):
        _marks(fast_value, (n,), given_marks)
        _marks(slow_value, (n,), libyamls)
    assert given_marks.keys() == libyamls.keys()
    for path, mark in given_marks.items():
        if mark is not None:
            assert mark == libyamls[path], (text, path)
            _COMPARED[0] += 1


def test_the_comparison_is_not_vacuous() -> None:
    test_a_flow_collections_marks_are_libyamls_or_none()
    assert _COMPARED[0] > 100
