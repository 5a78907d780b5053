"""A one-line flow collection written out again with its new value, in flow style.

Such a collection holds no comment, so writing it again loses nothing, where
the round trip would re-flow the whole document. Each key and scalar whose
own text still reads as its part of the value keeps that text, and an entry
put back takes the text it was recorded with.
"""

from __future__ import annotations

from typing import Any

import yaml

from tfpolicy.edits import Path
from tfpolicy.yamlio.emit import flow_text, scalar
from tfpolicy.yamlio.expand import Doc
from tfpolicy.yamlio.restore import reads_as


def flow_again(doc: Doc, node: yaml.Node, value: Any, path: Path) -> str:
    """``value`` as one line of flow YAML, keeping the text of each key and scalar of
    ``node`` that still reads as its part of ``value``, and the recorded text of an
    entry put back."""
    if isinstance(node, yaml.MappingNode) and isinstance(value, dict):
        old = {k.value: (k, v) for k, v in node.value
               if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge"}
        parts = [f"{_written(doc, old[k][0], k)}: {flow_again(doc, old[k][1], v, (*path, k))}"
                 if k in old else _flow_entry(doc, (*path, k), v) for k, v in value.items()]
        return "{" + ", ".join(parts) + "}"
    if isinstance(node, yaml.SequenceNode) and isinstance(value, list):
        items = [flow_again(doc, node.value[i], v, (*path, i)) if i < len(node.value)
                 else flow_text(v) for i, v in enumerate(value)]
        return "[" + ", ".join(items) + "]"
    return _written(doc, node, value)


def _flow_entry(doc: Doc, path: Path, value: Any) -> str:
    layout = doc.put_back.get(path)
    if layout is not None and "\n" not in layout.text \
            and reads_as("{" + layout.text + "}", {path[-1]: value}):
        return layout.text
    return f"{scalar(path[-1])}: {flow_text(value)}"


def _written(doc: Doc, node: yaml.Node, value: Any) -> str:
    """The scalar ``node``'s own text when it reads as ``value``, else ``value`` written anew."""
    if isinstance(node, yaml.ScalarNode) and node.start_mark.line == node.end_mark.line \
            and node.style not in ("|", ">") and not isinstance(value, dict | list):
        text = doc.text[node.start_mark.index:node.end_mark.index]
        if text and reads_as(f"[{text}]", [value]):
            return text
    return flow_text(value)
