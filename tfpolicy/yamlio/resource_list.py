"""ResourceList text for the KRM function: items cut out, handed over, and spliced back.

A KRM function must give back the whole ResourceList with comments kept
and in block style (docs/hosts.md, "KRM function"): kpt keeps the node
style it receives, so flow output would turn the user's files into JSON. The
list arrives as one block-style YAML document, so each item is cut out of
the text as its own document (dedented), the engine rewrites it like any
file, and only changed items are spliced back; every other byte, the
orchestrator's annotations included, stays as it came. A list that is not
in block style (JSON) is re-emitted from its data in block style instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from tfpolicy.records import Record
from tfpolicy.yamlio.emit import dump_documents
from tfpolicy.yamlio.load import parse_with_libyaml
from tfpolicy.yamlio.rnodes import Mapping as FastMapping

_LEADING = re.compile(r"[ ]*")


class ItemSpan(Record):
    """Where one item's mapping sits in the ResourceList text, and its text dedented."""

    start: int
    end: int
    indent: int
    text: str


def item_spans(text: str, root: yaml.Node | None) -> list[ItemSpan] | None:
    """Each item's span, or ``None`` when the list is not all block style.

    Spans need mappings' end marks, which only libyaml's node tree has.
    """
    if isinstance(root, FastMapping):
        root = parse_with_libyaml(text, file="<stdin>").node
    items = _value(root, "items")
    if root is None or _flow(root) or not isinstance(items, yaml.SequenceNode) or _flow(items):
        return None
    spans = []
    for node in items.value:
        if not isinstance(node, yaml.MappingNode) or _flow(node):
            return None
        start, end, indent = node.start_mark.index, node.end_mark.index, node.start_mark.column
        spans.append(ItemSpan(start, end, indent, _dedent(text[start:end], indent)))
    return spans


def _value(root: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(root, yaml.MappingNode):
        return None
    return next((v for k, v in root.value if getattr(k, "value", None) == key), None)


def _flow(node: yaml.Node) -> bool:
    return bool(getattr(node, "flow_style", False))


def _dedent(text: str, indent: int) -> str:
    """The item as a top-level document: continuation lines lose the item's indent."""
    first, _, rest = text.partition("\n")
    lines = [line[min(indent, len(_LEADING.match(line).group(0))):]  # type: ignore[union-attr]
             for line in rest.split("\n")]
    return "\n".join([first, *lines]) if "\n" in text else first


def _indent(text: str, indent: int) -> str:
    first, _, rest = text.partition("\n")
    pad = " " * indent
    lines = [pad + line if line.strip() else line for line in rest.split("\n")]
    return "\n".join([first, *lines]) if "\n" in text else first


def splice_items(text: str, spans: list[ItemSpan], new: Mapping[int, str]) -> str:
    """``text`` with the items numbered in ``new`` replaced by their rewritten text."""
    out, cursor = [], 0
    for number, span in enumerate(spans):
        if number in new:
            out += [text[cursor:span.start], _indent(new[number], span.indent)]
            cursor = span.end
    out.append(text[cursor:])
    return "".join(out)


def append_block(text: str, key: str, value: Any) -> str:
    """``text`` (a block mapping) with ``key: value`` added at its end, in block style."""
    body = dump_block({key: value})
    return text + ("" if text.endswith("\n") or not text else "\n") + body


def dump_block(data: Any) -> str:
    """Block-style YAML text of plain data, keys in their given order."""
    return dump_documents([data]).removeprefix("---\n")
