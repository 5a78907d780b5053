"""JSON manifests stay JSON: a document written as JSON is re-emitted with ``json``.

The splice only handles block YAML, and the round-trip fallback would turn
a ``.json`` file into YAML flow style that JSON tools can no longer read.
"""

from __future__ import annotations

import json
import re

from tfpolicy.edits import Edit, apply_edits

_INDENT = re.compile(r"\n([ \t]+)\S")


def rewrite_json(text: str, edits: list[Edit], newline: str) -> str | None:
    """``text`` with ``edits`` applied, if it is one JSON object; else ``None``."""
    body = text.strip()
    if not body.startswith("{"):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    indent = _INDENT.search(body.replace("\r\n", "\n"))
    width = len(indent.group(1).expandtabs()) if indent else None
    out = json.dumps(apply_edits(data, edits), indent=width, ensure_ascii=False)
    lead = text[: len(text) - len(text.lstrip())]
    tail = text[len(text.rstrip()):]
    return lead + out.replace("\n", newline) + tail
