"""JSON manifests are read as JSON and stay JSON.

kubectl reads a file that opens with ``{`` as JSON (k8s.io/apimachinery
``pkg/util/yaml/decoder.go``, ``YAMLOrJSONDecoder``: a JSON prefix means the
JSON decoder). So a document that is one JSON object takes its data from a
JSON reader, not from YAML's reading of the same bytes, which differs: a raw
NEL (U+0085), LS or PS in a string is a line break to YAML 1.1, DEL (U+007F)
and the C1 controls are not printable to libyaml, and ``"\\ud83d\\ude00"`` is
two surrogates to YAML's escapes where JSON joins them. libyaml still gives
the node tree, whose positions the layout of a rollback needs: it reads a
copy of the text with those characters and escapes replaced by stand-ins of
the same length, so every position is the original's.

Such a document is written back by jsonsplice.py (or, where the splice cannot,
as a whole by ``json.dumps``) and read back as JSON: it is never re-emitted as
YAML flow, which kubectl would read as JSON and refuse (unquoted keys).
"""

from __future__ import annotations

import json
import re
from typing import Any

_JSON_START = re.compile(r"\s*\{")
# Raw characters a JSON string may hold that YAML reads otherwise (line breaks, or not
# printable to libyaml); the same-length stand-in keeps every position.
_YAML_MISREAD = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_STAND_IN = "?"
# A UTF-16 surrogate pair escape, after an even run of backslashes (not itself escaped).
_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.I)
_LONE = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})", re.I)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise ValueError("a repeated key")
    return mapping


def _refuse(text: str) -> Any:
    raise ValueError(text)  # NaN, Infinity: not JSON to Go's decoder


_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_refuse)


def read(text: str) -> Any:
    """The data of ``text`` when it is one JSON object (no repeated key, no NaN, no lone
    surrogate), else ``None``; a text that does not open with ``{`` is never parsed."""
    if not _JSON_START.match(text):
        return None
    try:
        data = _DECODER.decode(text)
    except ValueError:  # not JSON: YAML flow style, say; YAML's reading it is
        return None
    return data if isinstance(data, dict) and not _LONE.search(_PAIR.sub("", text)) else None


def for_positions(text: str) -> str:
    """``text`` as libyaml can read it, every character where it was (see the module)."""
    text = _YAML_MISREAD.sub(_STAND_IN, text)
    return _PAIR.sub(lambda m: m.group(1) + "\\u0020\\u0020", text) if "\\u" in text else text


def reads_as(text: str, original: str, intended: Any) -> bool:
    """``text`` is one JSON object that reads as exactly ``intended``, and ends a line where
    ``original`` did."""
    from tfpolicy.edits import same

    if original.endswith(("\n", "\r")) != text.endswith(("\n", "\r")):
        return False
    data = read(text)
    return data is not None and same(data, intended)


def join_surrogates(text: str) -> str:
    """A JSON-looking document's surrogate pair escapes (``"\\ud83d\\ude00"``) as the
    characters, for libyaml, whose double-quoted escapes refuse surrogates (a YAML
    flow document that opens with ``{``: kubectl reads it as JSON, which allows them)."""
    if "\\u" not in text or not text.lstrip().startswith("{"):
        return text
    return _PAIR.sub(_joined, text)


def _joined(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    return match.group(1) + chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
