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
from tfpolicy.yamlio.located import located_error
from tfpolicy.yamlio.rnodes import Mapping as FastMapping

_LEADING = re.compile(r"[ ]*")


class ItemSpan(Record):
    """Where one item's mapping sits in the ResourceList text, and its text dedented."""

    start: int
    end: int
    indent: int
    text: str
    line: int = 0  # of its first character, 0-based


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
        spans.append(ItemSpan(start, end, indent, _dedent(text[start:end], indent),
                              node.start_mark.line))
    return spans


class Scanned(Record):
    """A block-style ResourceList read as events, never as a whole tree: the text with its
    ``items`` emptied (the rest of the list, to parse as usual), and each item's span."""

    header: str
    spans: list[ItemSpan]  # ``text`` left empty: ``item_text`` cuts it out when needed


def scan(text: str) -> Scanned | None:
    """Each item's span by libyaml's events, which check the whole stream's syntax and hold
    one event at a time; ``None`` when the list is not one block mapping whose ``items``
    is a block sequence of block mappings, or when it holds an alias or a tag on a
    collection (an item alone would not read as it does in the list): then the list is
    parsed whole (``item_spans``)."""
    loader = yaml.CLoader(text)
    try:
        return _scanned(text, _Events(loader))
    except yaml.YAMLError as exc:
        raise located_error(exc, "<stdin>", 0, text) from None
    finally:
        loader.dispose()


class _Events:
    """libyaml's events, one at a time."""

    def __init__(self, loader: yaml.CLoader) -> None:
        self.loader = loader

    def next(self) -> Any:
        event = self.loader.get_event()
        if isinstance(event, yaml.AliasEvent) or (
                isinstance(event, yaml.CollectionStartEvent) and not event.implicit):
            raise _NotPlain
        return event

    def skip(self, event: Any) -> Any:
        """Past the node ``event`` opens; its last event."""
        depth = 1 if isinstance(event, yaml.CollectionStartEvent) else 0
        while depth:
            event = self.next()
            depth += (isinstance(event, yaml.CollectionStartEvent)
                      - isinstance(event, yaml.CollectionEndEvent))
        return event


class _NotPlain(Exception):
    """The list is not the plain block shape ``scan`` reads."""


def _scanned(text: str, events: _Events) -> Scanned | None:
    try:
        events.next(), events.next()  # the stream and its document start
        root = events.next()
        if not isinstance(root, yaml.MappingStartEvent) or root.flow_style:
            return None
        found = _root_items(text, events)
        end = events.next(), events.next()
        if not isinstance(end[1], yaml.StreamEndEvent) or found is None:
            return None  # a second document: the whole parse says what is wrong
    except _NotPlain:
        return None
    start, stop, spans = found
    return Scanned(text[:start] + " []\n" + text[stop:], spans)


def _root_items(text: str, events: _Events) -> tuple[int, int, list[ItemSpan]] | None:
    found = None
    while not isinstance(key := events.next(), yaml.MappingEndEvent):
        value = events.next()
        if isinstance(key, yaml.ScalarEvent) and key.value == "items" and found is None:
            if not isinstance(value, yaml.SequenceStartEvent) or value.flow_style:
                raise _NotPlain
            spans, end = _items(events)
            found = (_mark(value).index, end, spans)
        else:
            events.skip(key)
            events.skip(value)
    return found


def _items(events: _Events) -> tuple[list[ItemSpan], int]:
    spans = []
    while not isinstance(item := events.next(), yaml.SequenceEndEvent):
        if not isinstance(item, yaml.MappingStartEvent) or item.flow_style:
            raise _NotPlain
        last = events.skip(item)
        start = _mark(item)
        spans.append(ItemSpan(start.index, _mark(last, end=True).index, start.column, "",
                              start.line))
    return spans, _mark(item, end=True).index


def _mark(event: yaml.Event, end: bool = False) -> Any:
    mark = event.end_mark if end else event.start_mark
    assert mark is not None  # libyaml marks every event
    return mark


def item_text(text: str, span: ItemSpan) -> str:
    """The item of ``span`` as a top-level document."""
    return span.text or _dedent(text[span.start:span.end], span.indent)


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
