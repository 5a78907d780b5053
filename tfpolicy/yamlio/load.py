"""Parse one document with libyaml (PyYAML's C loader), keeping the node tree.

The node tree carries the positions that let edits be spliced into the
original text; the constructed data is plain dicts, lists and scalars for
the pure core. Duplicate keys and alias bombs are errors, as they are for
the Kubernetes API server's strict decoder.
"""

from __future__ import annotations

from typing import Any

import yaml

from tfpolicy.errors import TfpolicyError
from tfpolicy.records import Record
from tfpolicy.yamlio import fast, jsondoc, rnodes
from tfpolicy.yamlio.construct import Loader as _Loader
from tfpolicy.yamlio.construct import Yaml11Loader as _Yaml11Loader
from tfpolicy.yamlio.construct import error as _error
from tfpolicy.yamlio.construct import is_kubernetes_node
from tfpolicy.yamlio.located import TEMPLATE_SYNTAX as TEMPLATE_SYNTAX
from tfpolicy.yamlio.located import located_error

MAX_ALIAS_NODES = 100_000  # nodes aliases may add to a document when they are expanded
_MAP = "tag:yaml.org,2002:map"


class Parsed(Record):
    """A document's data and node tree (``None`` for an empty document, and for one that is
    only ``null``: ``--- ~``, which kubectl skips as it skips an empty one)."""

    data: Any
    node: yaml.Node | None


def parse_document(text: str, *, file: str, line: int = 0) -> Parsed:
    """Parse one document; any failure becomes a one-line error at ``file:line:col``.

    rapidyaml reads it when it can settle it exactly as libyaml would
    (fast.py); otherwise, and for every error, libyaml does.
    """
    quick = fast.read(text)
    if quick is not None:
        return Parsed(quick.data, rnodes.root_node(quick))
    return parse_with_libyaml(text, file=file, line=line)


def parse_with_libyaml(text: str, *, file: str, line: int = 0) -> Parsed:
    """Parse one document with libyaml, the authority for errors and their locations.

    Data reached through aliases is copied, so every path in the data is its
    own value, as it is in the JSON that kubectl sends: an edit at one path
    never shows at another. A JSON document's data is JSON's (jsondoc.py).
    """
    as_json = jsondoc.read(text)
    source = jsondoc.join_surrogates(text) if as_json is None else jsondoc.for_positions(text)
    try:
        node, data = _read(_Loader, source, as_json)
    except yaml.YAMLError as exc:
        raise located_error(exc, file, line, text) from None
    except RecursionError:
        raise TfpolicyError("YAML nested too deeply", file=file, line=line + 1) from None
    if data is None and isinstance(node, yaml.ScalarNode):
        return Parsed(None, None)  # "--- ~": a null document is empty, as kubectl reads it
    return Parsed(data, node)


def _read(loader_class: type[_Loader], source: str, as_json: Any) -> tuple[Any, Any]:
    """The node tree and data of ``source``: a Kubernetes object as kubectl reads it,
    tfpolicy's own files as YAML 1.1 (construct.py); a JSON document's data is JSON's."""
    loader = loader_class(source)
    try:
        node = loader.get_single_node()
        if as_json is not None or node is None:
            return node, as_json
        if loader_class is _Loader and not is_kubernetes_node(node):
            return _read(_Yaml11Loader, source, as_json)
        if "*" in source and "&" in source and _shares_nodes(node):
            return node, _unshare(loader.construct_document(node), node, set())
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def _unshare(value: Any, root: yaml.Node, active: set[int]) -> Any:
    """``value`` with no list or mapping appearing twice (aliases expanded as copies)."""
    if not isinstance(value, dict | list):
        return value
    if id(value) in active:
        raise _error("an alias refers to a node that contains it", root)
    active.add(id(value))
    if isinstance(value, dict):
        copy: Any = {k: _unshare(v, root, active) for k, v in value.items()}
    else:
        copy = [_unshare(v, root, active) for v in value]
    active.discard(id(value))
    return copy


def _shares_nodes(root: yaml.Node) -> bool:
    """Whether aliases make a node appear more than once; an error when they loop, or
    when expanding them would add more than ``MAX_ALIAS_NODES`` nodes (billion laughs).

    What is counted is what aliases add, not the nodes written: a large document
    with a ``*`` in some string and no alias is as large as it is written."""
    sizes: dict[int, int] = {}  # expanded size of each node
    uses: dict[int, int] = {}  # how often each node is referred to
    open_: set[int] = set()  # nodes whose children are still being sized
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if not expanded:
            uses[id(node)] = uses.get(id(node), 0) + 1
        if id(node) in sizes:
            continue
        children = _children(node)
        if not expanded and children:
            if id(node) in open_:
                raise _error("an alias refers to a node that contains it", node)
            open_.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children)
            continue
        open_.discard(id(node))
        sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
    added = sizes[id(root)] - len(sizes)
    if added > MAX_ALIAS_NODES:
        raise _error(f"aliases expand to {added} more nodes than are written (at most "
                     f"{MAX_ALIAS_NODES})", _largest_shared(root, sizes, uses))
    return added > 0


def _largest_shared(root: yaml.Node, sizes: dict[int, int], uses: dict[int, int]) -> yaml.Node:
    """The largest node aliases refer to: where an expansion error points."""
    best, stack, seen = root, [root], {id(root)}
    while stack:
        node = stack.pop()
        if uses[id(node)] > 1 and (best is root or sizes[id(node)] > sizes[id(best)]):
            best = node
        fresh = [c for c in _children(node) if id(c) not in seen]
        seen.update(id(c) for c in fresh)
        stack.extend(fresh)
    return best


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def is_mapping_node(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.MappingNode) and node.tag == _MAP


def load_all(text: str, *, file: str) -> list[Any]:
    """Every document of a small file (policies, configs, inventories) as data."""
    from tfpolicy.yamlio.stream import split_documents

    docs = []
    for raw in split_documents(text):
        parsed = parse_document(raw.text, file=file, line=raw.line)
        if parsed.node is not None:
            docs.append(parsed.data)
    return docs


def locate(node: yaml.Node | None, path: tuple[str | int, ...]) -> tuple[int, int]:
    """0-based (line, column) of the deepest node on ``path`` that can be placed.

    A mapping entry is located at its key, unless its value is a scalar on
    the key's line: then at the value, which is what a message about a bad
    value points to. The path is walked first and only the place reported
    is measured (a mark of rapidyaml's tree costs more than the walk); where
    rapidyaml's tree cannot place it, the entry above it is reported.
    """
    if node is None:
        return 0, 0
    root = node
    steps: list[tuple[yaml.Node | None, yaml.Node]] = []
    for item in path:
        step = _step(node, item)
        if step is None:
            break
        steps.append(step)
        node = step[1]
    for key, value in reversed(steps):
        try:
            where = _mark(key, value)
        except rnodes.NeedsLibyaml:  # a value rapidyaml's tree cannot place: the one above
            continue
        return int(where.line), int(where.column)
    where = root.start_mark
    return int(where.line), int(where.column)


def _step(node: yaml.Node, item: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    """The key (``None`` for a sequence item) and node one step down ``item``, if any."""
    if isinstance(node, rnodes.Mapping) and isinstance(item, str):
        return node.pair(item)
    if isinstance(node, yaml.MappingNode):
        return next(((k, v) for k, v in node.value if k.value == item), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(item, int) and item < len(node.value):
        return None, node.value[item]
    return None


def _mark(key: yaml.Node | None, value: yaml.Node) -> Any:
    if key is None:
        return value.start_mark
    if isinstance(value, yaml.ScalarNode):
        try:
            if value.start_mark.line == key.start_mark.line:
                return value.start_mark
        except rnodes.NeedsLibyaml:  # a block scalar: its key it is
            pass
    return key.start_mark
