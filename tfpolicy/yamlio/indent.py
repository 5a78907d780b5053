"""A document's indentation step, read from its node tree.

Both the splice and the record of what a stage removed (restore.py) write
new lines at the document's own step, as does the round trip (rt.py).
"""

from __future__ import annotations

import yaml


def indent_step(root: yaml.Node) -> int:
    """The document's mapping indentation (2 unless it nests block mappings otherwise)."""
    aliased = not getattr(root, "read_without_aliases", False)
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode) and not node.flow_style:
            for key, value in node.value:
                if aliased and value.start_mark.index < key.end_mark.index:
                    continue  # an alias: its marks are the anchor's
                if isinstance(value, yaml.MappingNode) and not value.flow_style and value.value:
                    step = value.value[0][0].start_mark.column - key.start_mark.column
                    return max(1, int(step))
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return 2
