"""Round-trip YAML for KRM ResourceLists: comments, key order and quoting kept.

A KRM function must give back the whole ResourceList, comments included
(reference/hosts.md §1.1), and in block style: kpt keeps the node style it
receives, so JSON flow output would turn the user's files into JSON (§1.3).
ruamel.yaml's round-trip mode keeps what the orchestrator sent; each item is
handed to the engine as its own YAML text and parsed back only when the
engine changed it.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from tfpolicy.errors import TfpolicyError

__all__ = ["CommentedMap", "dump", "dump_item", "load", "load_item", "plain"]


def _engine() -> YAML:
    engine = YAML(typ="rt")
    engine.preserve_quotes = True
    engine.width = 1 << 16  # never fold long strings: they are user data
    engine.indent(mapping=2, sequence=2, offset=0)  # kyaml's compact sequence style
    return engine


def load(text: str, *, file: str) -> Any:
    """The one document of ``text`` (``None`` when empty); bad YAML is a one-line error."""
    try:
        return _engine().load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TfpolicyError(f"invalid YAML: {problem}", file=file, line=line) from None


def dump(data: Any) -> str:
    """Block-style YAML text of ``data``, comments kept."""
    out = io.StringIO()
    _engine().dump(data, out)
    return out.getvalue()


def dump_item(item: Any) -> str:
    """One ResourceList item as a standalone YAML document for the engine."""
    return dump(item)


def load_item(text: str, *, file: str) -> Any:
    return load(text, file=file)


def plain(data: Any) -> Any:
    """A fresh ruamel node (mapping/list) from plain data, so new values dump in block style."""
    if isinstance(data, dict):
        node = CommentedMap()
        for key, value in data.items():
            node[key] = plain(value)
        return node
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
