"""Where a document shares nodes: each alias occurrence, found by its path.

libyaml hands an alias over as the anchored node itself, marks and all, so
a splice that followed an alias would write at the anchor and change every
other user of it (``labels: *l`` would put the pod labels into the
selector's ``matchLabels: &l``). The walk below tells the anchor's own
place (its first occurrence, anchors come before their aliases) from each
alias occurrence, so the splice can expand one occurrence in place and the
other users keep their value.
"""

from __future__ import annotations

import yaml

from tfpolicy.edits import Path, PathItem
from tfpolicy.records import Record, field


class Sharing(Record):
    """Alias occurrences by (parent node id, index in parent), and each anchor's users."""

    alias_at: dict[tuple[int, int], Path] = field(default_factory=dict)
    users: dict[int, list[Path]] = field(default_factory=dict)

    def is_alias(self, parent: yaml.Node, index: int) -> bool:
        return (id(parent), index) in self.alias_at


def sharing(root: yaml.Node, text: str) -> Sharing:
    """The document's alias occurrences (none without a ``*`` in its text)."""
    found = Sharing()
    if "*" not in text or getattr(root, "read_without_aliases", False):
        return found
    seen: set[int] = set()
    stack: list[tuple[int, int, yaml.Node, Path]] = [(0, 0, root, ())]
    while stack:
        parent, index, node, path = stack.pop()
        if id(node) in seen:
            found.alias_at[(parent, index)] = path
            found.users.setdefault(id(node), []).append(path)
            continue
        seen.add(id(node))
        stack.extend(reversed([(id(node), i, child, (*path, item))
                               for i, item, child in children(node)]))
    return found


def children(node: yaml.Node) -> list[tuple[int, PathItem, yaml.Node]]:
    """(index, path item, child) of a collection node; a mapping's keys are not children."""
    if isinstance(node, yaml.MappingNode):
        return [(i, _item(k), v) for i, (k, v) in enumerate(node.value)]
    if isinstance(node, yaml.SequenceNode):
        return [(i, i, v) for i, v in enumerate(node.value)]
    return []


def _item(key: yaml.Node) -> PathItem:
    return str(key.value) if isinstance(key, yaml.ScalarNode) else f"\0{id(key)}"


def shared_below(node: yaml.Node, found: Sharing) -> list[yaml.Node]:
    """Anchored nodes at or under ``node`` (its own alias occurrences not followed)."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if id(current) in found.users:
            out.append(current)
        stack.extend(child for i, _, child in children(current)
                     if not found.is_alias(current, i))
    return out
