"""libyaml-shaped nodes over a rapidyaml tree, built only where the splice or a locator looks.

The splice (splice.py, expand.py) and ``locate`` walk libyaml's node
classes and marks. These subclasses answer the same questions from a
rapidyaml tree: children on first access, marks from where each scalar's
view sits in the parsed buffer. A mark the tree cannot give exactly (a
block scalar's end, a flow collection's brackets when more than blanks
stand between them and its entries, a multi-line plain scalar) raises
``NeedsLibyaml``, and the caller does that document the libyaml way; so a
position is either libyaml's own or not given at all.
"""

from __future__ import annotations

import re
from collections import abc
from typing import Any, overload

import yaml

from tfpolicy.yamlio.fast import Read
from tfpolicy.yamlio.marks import Mark, NeedsLibyaml, ReadText, once
from tfpolicy.yamlio.rapid import ryml

__all__ = ["Mapping", "NeedsLibyaml", "Scalar", "Sequence", "root_node"]

_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_NONE = (1 << 64) - 1  # rapidyaml's "no node" (size_t -1)
_KEY_STYLES = (("'", ryml.KEY_SQUO), ('"', ryml.KEY_DQUO), ("|", ryml.KEY_LITERAL),
               (">", ryml.KEY_FOLDED))
_VAL_STYLES = (("'", ryml.VAL_SQUO), ('"', ryml.VAL_DQUO), ("|", ryml.VAL_LITERAL),
               (">", ryml.VAL_FOLDED))
_SINGLE = re.compile(r"'(?:[^'\n]|'')*'")
_DOUBLE = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"')


def root_node(read: Read) -> yaml.Node:
    """The document's root mapping, as a libyaml-shaped node."""
    return _node(ReadText(read), read.root, False, None)


def _node(doc: ReadText, node: int, is_key: bool, key: Scalar | None) -> yaml.Node:
    """A node made once: only its parent's ``value`` (itself made once) makes it."""
    if is_key:
        return Scalar(doc, node, is_key, key)
    bits = doc.read.tree.type(node)
    if bits & ryml.MAP:
        return Mapping(doc, node)
    if bits & ryml.SEQ:
        return Sequence(doc, node)
    return Scalar(doc, node, is_key, key)


def _children(doc: ReadText, node: int) -> list[int]:
    return [int(c) for c in ryml.children(doc.read.tree, node)]


class Scalar(yaml.ScalarNode):
    def __init__(self, doc: ReadText, node: int, is_key: bool, key: Scalar | None) -> None:
        self._doc, self._node, self._is_key, self._key = doc, node, is_key, key
        self._span: tuple[int, int] | None = None

    def _view(self) -> Any:
        tree = self._doc.read.tree
        return tree.key(self._node) if self._is_key else tree.val(self._node)

    # Read once, then an attribute like libyaml's (the splice asks often).
    @once
    def value(self) -> str:
        view = self._view()
        return "" if view is None else bytes(view).decode("utf-8")

    @once
    def style(self) -> str | None:
        return self._read_style()

    def _read_style(self) -> str | None:
        bits = self._doc.read.tree.type(self._node)  # one call: the node's type bits
        for style, mask in _KEY_STYLES if self._is_key else _VAL_STYLES:
            if bits & mask:
                return style
        return None

    @once
    def tag(self) -> str:
        if self._is_key or self.style is not None or self.value not in ("", "null"):
            return _STR
        return _NULL

    @once
    def start_mark(self) -> Mark:
        return Mark(self._doc.text, self._bounds()[0])

    @once
    def end_mark(self) -> Mark:
        return Mark(self._doc.text, self._bounds()[1])

    def _bounds(self) -> tuple[int, int]:
        if self._span is None:
            self._span = self._measure()
        return self._span

    def _measure(self) -> tuple[int, int]:
        text, view, style = self._doc.text, self._view(), self.style
        if view is None or len(view) == 0:
            if style is not None:
                raise NeedsLibyaml("an empty quoted scalar has no view to place")
            return self._empty()
        at = self._doc.index_of_view(view)
        if style is None:
            value = self.value
            if "\n" in value or text[at:at + len(value)] != value:
                raise NeedsLibyaml("a plain scalar over several lines")
            return at, at + len(value)
        if style in ("'", '"'):
            quoted = (_SINGLE if style == "'" else _DOUBLE).match(text, at - 1)
            if quoted is None:
                raise NeedsLibyaml("a quoted scalar over several lines")
            return at - 1, quoted.end()
        raise NeedsLibyaml("a block scalar's end")

    def _empty(self) -> tuple[int, int]:
        """libyaml marks an empty value right after its key's colon."""
        if self._key is None:
            raise NeedsLibyaml("an empty item")
        colon = re.compile(r"[ \t]*:").match(self._doc.text, self._key.end_mark.index)
        if colon is None:
            raise NeedsLibyaml("no colon after the key")
        return colon.end(), colon.end()


class _Pairs(abc.Sequence[tuple[yaml.Node, yaml.Node]]):
    """A mapping's entries as libyaml's list of pairs, each made on first use: the splice
    and the locator look at a few entries of a few mappings. rapidyaml counts them and
    finds the i-th (``child``) and an entry's place (``child_pos``) itself."""

    __slots__ = ("_doc", "_made", "_node")

    def __init__(self, doc: ReadText, node: int) -> None:
        self._doc, self._node = doc, node
        self._made: list[tuple[yaml.Node, yaml.Node] | None] = \
            [None] * doc.read.tree.num_children(node)

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, index: int) -> tuple[yaml.Node, yaml.Node]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[yaml.Node, yaml.Node]]: ...
    def __getitem__(self, index: int | slice,
                    ) -> tuple[yaml.Node, yaml.Node] | list[tuple[yaml.Node, yaml.Node]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._made)))]
        made = self._made[index]
        if made is None:
            child = int(self._doc.read.tree.child(self._node, index % len(self._made)))
            key = Scalar(self._doc, child, True, None)
            made = self._made[index] = (key, _node(self._doc, child, False, key))
        return made

    def position_of(self, child: int) -> int:
        return int(self._doc.read.tree.child_pos(self._node, child))


class Mapping(yaml.MappingNode):
    read_without_aliases = True  # the fast reading declines any document with one

    def __init__(self, doc: ReadText, node: int) -> None:
        self._doc, self._node = doc, node

    tag = _MAP

    @once
    def flow_style(self) -> bool:
        return bool(self._doc.read.tree.is_flow(self._node))

    @once
    def value(self) -> _Pairs:
        return _Pairs(self._doc, self._node)

    def position(self, key: str) -> int | None:
        """The index of the entry whose key is ``key``, found by rapidyaml without making a
        node of every entry (its keys are unique: the fast reading declines repeated ones;
        an empty key is looked for the plain way)."""
        found = self._positions.get(key, -1)
        if found != -1:
            return found
        if not key:
            found = next((i for i, (k, _) in enumerate(self.value) if k.value == key), None)
        else:
            child = self._doc.read.tree.find_child(self._node, key.encode("utf-8"))
            found = None if child == _NONE else self.value.position_of(child)
        self._positions[key] = found
        return found

    @once
    def _positions(self) -> dict[str, int | None]:  # the splice walks the same paths often
        return {}

    def pair(self, key: str) -> tuple[yaml.Node, yaml.Node] | None:
        """The entry whose key is ``key`` (see ``position``)."""
        index = self.position(key)
        return None if index is None else self.value[index]

    @property
    def start_mark(self) -> Mark:  # type: ignore[override]
        if not self.value:
            raise NeedsLibyaml("an empty mapping's brackets")
        first: Any = self.value[0][0]
        if self.flow_style:
            return _opening(self._doc.text, first, "{")
        return first.start_mark  # type: ignore[no-any-return]

    @property
    def end_mark(self) -> Mark:  # type: ignore[override]
        if not self.flow_style or not self.value:
            raise NeedsLibyaml("a block mapping's end")
        return _closing(self._doc.text, self.value[-1][1], "}")


class Sequence(yaml.SequenceNode):
    def __init__(self, doc: ReadText, node: int) -> None:
        self._doc, self._node = doc, node

    tag = _SEQ

    @once
    def flow_style(self) -> bool:
        return bool(self._doc.read.tree.is_flow(self._node))

    @once
    def value(self) -> list[yaml.Node]:
        return [_node(self._doc, c, False, None) for c in _children(self._doc, self._node)]

    @property
    def start_mark(self) -> Mark:  # type: ignore[override]
        """The first item's dash, which is where libyaml starts a block sequence; a flow
        one's opening bracket."""
        if not self.value:
            raise NeedsLibyaml("an empty sequence's brackets")
        return _opening(self._doc.text, self.value[0], "[" if self.flow_style else "-")

    @property
    def end_mark(self) -> Mark:  # type: ignore[override]
        if not self.flow_style or not self.value:
            raise NeedsLibyaml("a block sequence's end")
        return _closing(self._doc.text, self.value[-1], "]")


# A collection's start from its first entry's start (a flow one's end from its last entry's
# end): only blanks may stand between, on the same line (a trailing comma before a closing
# bracket). A comment, a line break or anything else is for libyaml to place.
_BLANKS = " \t"


def _opening(text: str, first: yaml.Node, opener: str) -> Mark:
    """libyaml's start of a collection: a flow one's opening bracket, a block sequence's
    first dash (``opener``)."""
    at = first.start_mark.index - 1
    while at >= 0 and text[at] in _BLANKS:
        at -= 1
    if at < 0 or text[at] != opener:
        raise NeedsLibyaml(f"no {opener!r} before the first entry")
    return Mark(text, at)


def _closing(text: str, last: yaml.Node, bracket: str) -> Mark:
    """libyaml's end of a flow collection: just after its closing bracket."""
    at, end = last.end_mark.index, len(text)
    while at < end and text[at] in _BLANKS:
        at += 1
    if at < end and text[at] == ",":
        at += 1
        while at < end and text[at] in _BLANKS:
            at += 1
    if at >= end or text[at] != bracket:
        raise NeedsLibyaml("a flow collection's closing bracket")
    return Mark(text, at + 1)
