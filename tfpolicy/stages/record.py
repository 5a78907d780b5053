"""tfpolicy's record on a pod template: what a stage wrote, and what was there before.

Every template a stage writes carries one annotation, ``tfpolicy.dev/original``,
holding readable JSON (docs/stages.md, "The record")::

    {"labels": {"tensor-fusion.ai/enabled": {}},
     "annotations": {"tensor-fusion.ai/isolation": {"was": "soft"},
                     "tensor-fusion.ai/gpupool": {}},
     "maps": {"annotations": {"was": null}},
     "resources": {"vllm": {"limits": {"nvidia.com/gpu": 2}}}}

- ``labels`` / ``annotations``: each key the stage wrote or removed, with the
  user's value (``{"was": …}``) or ``{}`` when the key was absent;
- ``maps``: each of ``metadata``, ``labels``, ``annotations`` the stage had to
  create (``{}``: it was absent; ``{"was": null}``: it was null);
- ``resources``: the GPU resources rightsize removed, as written,
  ``container → limits|requests → resource → value``;
- ``layout``: how the user wrote each of those places, so that they come
  back byte for byte (:mod:`tfpolicy.stages.layout`).

Empty sections are left out. Every entry is an object so that what
byte-exact restoration needs (a key's position, a scalar's style, a comment)
can join it as new members; readers ignore members they do not know.

So the template alone says which keys are tfpolicy's: without a record,
every key on it is the user's. A record of the older form
(``tfpolicy.dev/original-gpu-resources``, the resources alone) is still
read: the owned keys present were then written by tfpolicy.

The record comes from the repository, so it is read as untrusted input
(docs/record.md): bounded in size and nesting before it is parsed, and
refused when it holds a surrogate code point (UTF-8 cannot write one back);
what it may name is screened by :mod:`tfpolicy.stages.trust`.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from tfpolicy import records
from tfpolicy.records import field

SECTIONS = ("limits", "requests")
WAS = "was"
# Kubernetes refuses an object whose annotations together pass 256 KiB
# (apimachinery pkg/api/validation/objectmeta.go, TotalAnnotationSizeLimitB), so
# no record a cluster holds is larger; a longer one is not read at all.
MAX_BYTES = 256 * 1024
# The format nests four deep (resources → container → section → resource → value);
# the user's values it keeps are strings. Room for a little more, no further: the
# depth is counted before json.loads, whose recursion a deep array would exhaust.
MAX_DEPTH = 8
ENTRY_DEPTH = 3  # a label's or annotation's value: {"labels": {key: {"was": value}}}
RESOURCE_DEPTH = 4  # a resource's value: {"resources": {container: {section: {name: value}}}}
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}

# container name -> "limits"/"requests" -> resource name -> original YAML value
Usage = dict[str, dict[str, dict[str, Any]]]
# key -> {"was": value} (the user had value) or {} (absent)
Entries = dict[str, dict[str, Any]]


class Record(records.Record):
    labels: Entries = field(default_factory=dict)
    annotations: Entries = field(default_factory=dict)
    maps: Entries = field(default_factory=dict)
    resources: Usage = field(default_factory=dict)
    layout: Entries = field(default_factory=dict)


def encode(record: Record) -> str:
    parts = {"labels": record.labels, "annotations": record.annotations,
             "maps": record.maps, "resources": record.resources, "layout": record.layout}
    return _dump({name: part for name, part in parts.items() if part})


def too_large(text: str) -> bool:
    """``text``, as a record, would be over :data:`MAX_BYTES` in UTF-8."""
    return len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES


def decode(text: Any) -> Record:
    data = _load(text)
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object {"labels": …, "annotations": …, "resources": …}')
    labels, annotations, maps = (data.get(name, {}) for name in ("labels", "annotations", "maps"))
    if not all(_is_entries(section) for section in (labels, annotations, maps)):
        raise ValueError('expected labels, annotations and maps as {"<key>": {"was": <value>}}')
    layout = data.get("layout", {})
    if not _is_entries(layout):
        raise ValueError('expected layout as {"<place>": {"text": …}}')
    return Record(labels, annotations, maps, _usage(data.get("resources", {})), layout)


def decode_legacy(text: Any) -> Usage:
    return _usage(_load(text))


def unrecordable(value: Any, within: int = ENTRY_DEPTH) -> str | None:
    """Why ``value`` cannot be kept in a record, ``within`` levels deep, or ``None``: it must
    come back equal from the record's JSON (no dates, NaN, non-string keys), be text UTF-8
    can write, and leave the record readable (:data:`MAX_DEPTH`)."""
    try:
        text = _dump(value)
        same = bool(json.loads(text) == value)
    except (TypeError, ValueError):
        same = False
    if not same:
        return "holds a value tfpolicy cannot record; write it as a string"
    surrogate = _SURROGATE.search(text)
    if surrogate:
        return (f"holds {_named(surrogate.group())}, which UTF-8 cannot write; write the "
                "character itself")
    if _depth(text) + within > MAX_DEPTH:
        return "holds a value nested too deep for tfpolicy's record; write it as a string"
    return None


def _dump(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _load(text: Any) -> Any:
    if not isinstance(text, str):
        raise ValueError("expected a JSON string")
    _bounded(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at character {exc.pos})") from None
    # json.loads turns an escaped surrogate that has no partner into one code point
    surrogate = _ESCAPED_SURROGATE.search(text) and _SURROGATE.search(_dump(data))
    if surrogate:
        raise ValueError(f"holds {_named(surrogate.group())}, which is not a character")
    return data


def _bounded(text: str) -> None:
    why = unreadable(text)
    if why is not None:
        raise ValueError(why)


def unreadable(text: str) -> str | None:
    """Why ``text`` is refused before it is parsed, or ``None``: larger or deeper than any
    record tfpolicy writes, or holding a surrogate code point (the YAML reader lets
    ``"\\ud83d"`` through)."""
    if too_large(text):
        return f"larger than {MAX_BYTES // 1024} KiB, the most Kubernetes lets annotations hold"
    if _depth(text) > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels, more than its format has"
    surrogate = surrogate_in(text)
    return None if surrogate is None else f"holds {surrogate}, which is not a character"


def surrogate_in(text: str) -> str | None:
    """The first surrogate code point in ``text``, named, or ``None``."""
    found = None if text.isascii() else _SURROGATE.search(text)
    return None if found is None else _named(found.group())


def _depth(text: str) -> int:
    """How deep ``text``'s arrays and objects nest (brackets inside JSON strings do not
    count), without parsing it: in C, not a Python loop per bracket."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _named(char: str) -> str:
    return f"the surrogate code point U+{ord(char):04X}"


def _is_entries(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(e, dict) for e in value.values())


def _usage(data: Any) -> Usage:
    if not isinstance(data, dict) or not all(_is_sections(s) for s in data.values()):
        raise ValueError('expected resources as {"<container>": {"limits": {"<resource>": '
                         '"<quantity>"}}}')
    return data


def _is_sections(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) <= set(SECTIONS)
            and all(isinstance(entries, dict) for entries in value.values()))
