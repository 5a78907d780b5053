"""Which places an edit set must write out locally rather than splice into.

libyaml hands an alias over as the anchored node itself, so an edit that
follows it would land at the anchor; a key a merge key (``<<``) brings in
is not in the mapping's text at all; and ruamel's round trip edits an
anchor's other users along with it. For each such edit this finds the
place to write out whole with its intended value (aliases.py tells alias
occurrences from anchors); the splice then writes it and skips the edits
below it.
"""

from __future__ import annotations

from typing import Any

import yaml

from tfpolicy.edits import Edit, Layout, Op, Path
from tfpolicy.records import Record, field
from tfpolicy.yamlio.aliases import Sharing, shared_below
from tfpolicy.yamlio.rnodes import Mapping

_MERGE = "tag:yaml.org,2002:merge"


class Doc(Record):
    """A document being spliced: text, node tree, indent step, line ending, shared nodes."""

    text: str
    root: yaml.Node
    step: int
    newline: str
    shared: Sharing
    put_back: dict[Path, Layout] = field(default_factory=dict)  # how edits' values were written
    open_end: bool = False  # the text's last line break was added for the splice: it goes again


def _under(path: Path, prefix: Path) -> bool:
    return path[:len(prefix)] == prefix


def absorbed(edit: Edit, expanded: Path) -> bool:
    """The edit is written by expanding ``expanded`` (removing it is not)."""
    return _under(edit.path, expanded) and not (edit.path == expanded and edit.op is Op.REMOVE)


def expansions(doc: Doc, edits: list[Edit]) -> set[Path]:
    """Paths to write out locally: aliases, merged keys and flow collections edits pass.

    An edit below an anchor's own place also changes its other users, and
    one that removes an anchored node would leave them dangling: those
    users are expanded (with their unchanged value) too.
    """
    if isinstance(doc.root, Mapping) and "[" not in doc.text and "{" not in doc.text:
        return set()  # read by rapidyaml (no alias, no merge key), and no flow collection
    found: set[Path] = set()
    for edit in edits:
        through = _through(doc, edit)
        if through is not None:
            found.add(through)
            local = local_collection(doc, through)
            for node in shared_below(local, doc.shared) if local is not None else []:
                found.update(doc.shared.users[id(node)])  # its anchors are written out
            continue
        for node in _touched(doc, edit):
            found.update(doc.shared.users[id(node)])
    plain = [e.path for e in edits if not any(absorbed(e, q) for q in found)]
    return {q for q in found if not any(_under(q, p) for p in plain)
            and not any(_under(q, o) and o != q for o in found)}


def _through(doc: Doc, edit: Edit) -> Path | None:
    """The first place on the edit's path that is an alias or a merged-in key.

    Or a flow collection on one line, or any in a document with aliases or
    merge keys (the round trip would edit an anchor's other users with it,
    or drop a merged key): the whole collection is written out again, in
    flow style.
    """
    node, path = doc.root, edit.path
    for depth, item in enumerate(path):
        if _flow_shares(doc, node):
            return path[:depth]
        last = depth == len(path) - 1
        index = index_of(node, item)
        if index is None:
            if merges(node) and not last:
                return path[:depth + 1]
            if merges(node) and edit.op is Op.REMOVE:
                return path[:depth]  # a merged key cannot be removed: write the mapping out
            return None
        if doc.shared.is_alias(node, index):
            return None if last and edit.op is Op.REMOVE else path[:depth + 1]
        node = child(node, index)
    return None


def _touched(doc: Doc, edit: Edit) -> list[yaml.Node]:
    """Anchored nodes the edit changes in place: on its path, or replaced or removed by it."""
    if not doc.shared.users:
        return []
    out: list[yaml.Node] = []
    node = doc.root
    for item in edit.path:
        index = index_of(node, item)
        if index is None:
            return out
        node = child(node, index)
        if id(node) in doc.shared.users:
            out.append(node)
    return out + shared_below(node, doc.shared)


def _flow_shares(doc: Doc, node: yaml.Node) -> bool:
    """A flow collection to write out whole: a filled one on a single line (it holds no comment,
    so writing it again loses nothing, where the round trip would re-flow the document),
    or any in a document that shares nodes (the round trip mishandles those)."""
    if not isinstance(node, yaml.CollectionNode) or not node.flow_style:
        return False
    one_line = node.start_mark.line == node.end_mark.line and bool(node.value)
    return one_line or bool(doc.shared.users) or "<<" in doc.text


def local_collection(doc: Doc, path: Path) -> yaml.CollectionNode | None:
    """The collection written at ``path`` itself (not through an alias), if it is one."""
    node = doc.root
    for item in path:
        index = index_of(node, item)
        if index is None or doc.shared.is_alias(node, index):
            return None
        node = child(node, index)
    return node if isinstance(node, yaml.CollectionNode) else None


def index_of(node: yaml.Node, item: Any) -> int | None:
    if isinstance(node, Mapping) and isinstance(item, str):
        return node.position(item)  # rapidyaml finds it: no node made per entry
    if isinstance(node, yaml.MappingNode):
        try:
            return _keys(node).get(item)
        except TypeError:  # an unhashable path item names no key
            return None
    if isinstance(node, yaml.SequenceNode) and isinstance(item, int):
        return item if 0 <= item < len(node.value) else None
    return None


def _keys(node: yaml.MappingNode) -> dict[Any, int]:
    """Each key's first entry, indexed once per mapping (nodes are never changed, and the
    splice asks for the same mappings' keys over and over)."""
    found: dict[Any, int] | None = node.__dict__.get("_tfpolicy_keys")
    if found is None:
        found = {}
        for i, (key, _) in enumerate(node.value):
            if key.tag != _MERGE and isinstance(key.value, str):
                found.setdefault(key.value, i)
        node.__dict__["_tfpolicy_keys"] = found
    return found


def child(node: yaml.Node, index: int) -> yaml.Node:
    entry = node.value[index]
    return entry[1] if isinstance(entry, tuple) else entry  # type: ignore[no-any-return]


def merges(node: yaml.Node) -> bool:
    if isinstance(node, Mapping):
        return False  # the fast reading declines a document with a merge key
    return isinstance(node, yaml.MappingNode) and any(k.tag == _MERGE for k, _ in node.value)
