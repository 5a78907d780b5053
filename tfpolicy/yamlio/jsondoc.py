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


# A UTF-16 surrogate pair escape, after an even run of backslashes (not itself escaped).
_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.I)


def join_surrogates(text: str) -> str:
    """A JSON document's surrogate pair escapes (``"\\ud83d\\ude00"``) as the characters.

    kubectl reads a document that starts with ``{`` as JSON, which allows
    them; YAML's double-quoted escapes do not, so libyaml would refuse.
    """
    if "\\u" not in text or not text.lstrip().startswith("{"):
        return text
    return _PAIR.sub(_joined, text)


def _joined(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    return match.group(1) + chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
