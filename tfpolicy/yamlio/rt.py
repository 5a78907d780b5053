"""Round-trip fallback for layouts the splice does not handle (flow styles and the like).

ruamel.yaml keeps comments, key order and quoting; indentation is read off
the original document so the rewrite looks like its neighbours.
"""

from __future__ import annotations

import io
import re
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from tfpolicy.edits import Edit, Op
from tfpolicy.yamlio.emit import scalar
from tfpolicy.yamlio.indent import indent_step

# The "---" line, or only "--- " when content follows it on the line ("--- {flow: doc}").
_START = re.compile(r"^---(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|$)|[ \t]+(?=[^#\s]))", re.MULTILINE)
_END = re.compile(r"^\.\.\.(?=[ \t\r\n]|$)", re.MULTILINE)


def rewrite(text: str, root: yaml.Node, edits: list[Edit], newline: str) -> str:
    """``text`` re-emitted by ruamel.yaml with ``edits`` applied."""
    prefix, body, suffix = _frame(text)
    engine = _engine(root)
    data = engine.load(body.replace("\r\n", "\n"))
    for edit in edits:
        _apply(data, edit)
    out = io.StringIO()
    engine.dump(data, out)
    return prefix + out.getvalue().replace("\n", newline) + suffix


def _frame(text: str) -> tuple[str, str, str]:
    """Split off the ``---`` prefix and ``...`` suffix, which are kept verbatim."""
    start = _START.search(text)
    cut = start.end() if start else 0
    end = _END.search(text, cut)
    stop = end.start() if end else len(text)
    return text[:cut], text[cut:stop], text[stop:]


def _engine(root: yaml.Node) -> YAML:
    engine = YAML(typ="rt")
    engine.preserve_quotes = True
    engine.width = 1 << 16
    step = indent_step(root)
    offset, sequence = _sequence_style(root, step)
    engine.indent(mapping=step, sequence=sequence, offset=offset)
    return engine


def _sequence_style(root: yaml.Node, step: int) -> tuple[int, int]:
    """(dash offset, item indent) of the first block sequence under a mapping key."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
                    dash = value.start_mark.column - key.start_mark.column
                    return dash, dash + 2
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return 0, step


def _apply(data: Any, edit: Edit) -> None:
    parent = data
    for item in edit.path[:-1]:
        parent = parent[item]
    if edit.op is Op.REMOVE:
        del parent[edit.path[-1]]
    else:
        parent[edit.path[-1]] = _styled(edit.value)


def _styled(value: Any) -> Any:
    """New values quoted exactly as the splice would quote them."""
    if isinstance(value, dict):
        return {k: _styled(v) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    text = scalar(value)
    if text.startswith('"'):
        return DoubleQuotedScalarString(value)
    if text.startswith("'"):
        return SingleQuotedScalarString(value)
    return value
