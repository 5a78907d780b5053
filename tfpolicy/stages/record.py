"""tfpolicy's record on a pod template: what a stage wrote, and what was there before.

Every template a stage writes carries one annotation, ``tfpolicy.dev/original``,
holding readable JSON (DESIGN §1 "Reversible")::

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
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SECTIONS = ("limits", "requests")
WAS = "was"

# container name -> "limits"/"requests" -> resource name -> original YAML value
Usage = dict[str, dict[str, dict[str, Any]]]
# key -> {"was": value} (the user had value) or {} (absent)
Entries = dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Record:
    labels: Entries = field(default_factory=dict)
    annotations: Entries = field(default_factory=dict)
    maps: Entries = field(default_factory=dict)
    resources: Usage = field(default_factory=dict)
    layout: Entries = field(default_factory=dict)


def encode(record: Record) -> str:
    parts = {"labels": record.labels, "annotations": record.annotations,
             "maps": record.maps, "resources": record.resources, "layout": record.layout}
    return _dump({name: part for name, part in parts.items() if part})


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


def recordable(value: Any) -> bool:
    """``value`` comes back equal from the record's JSON (no dates, NaN, non-string keys)."""
    try:
        return bool(json.loads(_dump(value)) == value)
    except (TypeError, ValueError):
        return False


def _dump(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _load(text: Any) -> Any:
    if not isinstance(text, str):
        raise ValueError("expected a JSON string")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at character {exc.pos})") from None


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
