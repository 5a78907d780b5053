"""The KRM function reads a block-style ResourceList as libyaml's events, never as a whole
tree (docs/guarantees.md, "The KRM function reads a ResourceList item by item"): each
item's span is the one the whole parse gives, the rest of the list reads as before, and
anything the events cannot settle alone goes to the whole parse."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio import resource_list as rt
from tfpolicy.yamlio.load import parse_with_libyaml

ITEM = """\
- # item {n}
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c{n}
    annotations: {{config.kubernetes.io/path: 'f{n}.yaml', config.kubernetes.io/index: '0'}}
  data:
    text: |
      line one of {n}
      - not an item
    list:
    - a
    - {{b: [1, 2]}}
"""


def _listed(count: int, indent: int, tail: str = "") -> str:
    items = "".join(ITEM.format(n=n) for n in range(count))
    items = "".join(" " * indent + line if line.strip() else line
                    for line in items.splitlines(keepends=True))
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
            + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n"
            + tail)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.sampled_from([0, 2, 4]))
def test_spans_are_the_whole_parses(count: int, indent: int) -> None:
    text = _listed(count, indent)
    whole = rt.item_spans(text, parse_with_libyaml(text, file="<stdin>").node)
    scanned = rt.scan(text)
    assert whole is not None and scanned is not None
    assert [(s.start, s.end, s.indent, rt.item_text(text, s)) for s in scanned.spans] == \
        [(s.start, s.end, s.indent, s.text) for s in whole]
    assert [s.line for s in scanned.spans] == [s.line for s in whole]
    header = yaml.safe_load(scanned.header)
    assert header == {**yaml.safe_load(text), "items": []}


@pytest.mark.parametrize("text", [
    '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": []}',
    "apiVersion: v1\nkind: ResourceList\nitems: [{a: 1}]\n",
    "apiVersion: v1\nkind: ResourceList\nitems:\n- a: &x 1\n  b: *x\n",
    "apiVersion: v1\nkind: ResourceList\nitems:\n- !!map\n  a: 1\n",
    "apiVersion: v1\nkind: ResourceList\nitems:\n- a\n",
    "apiVersion: v1\nkind: ResourceList\nitems: []\n---\nkind: Other\n",
], ids=["json", "flow-items", "alias", "tagged-item", "scalar-item", "two-documents"])
def test_what_the_events_cannot_settle_goes_to_the_whole_parse(text: str) -> None:
    assert rt.scan(text) is None


def test_a_syntax_error_anywhere_is_located() -> None:
    text = _listed(3, 2).replace("    - a\n", "    - a\n   b: [\n", 1)
    with pytest.raises(TfpolicyError, match=r"<stdin>:\d+:\d+"):
        rt.scan(text)
