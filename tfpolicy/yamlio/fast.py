"""The fast reading of a document: rapidyaml's tree, its JSON, and positions from its views.

rapidyaml (``ryml``) parses a document into a flat tree whose scalars are
views into the source buffer, about a hundred times faster than libyaml
builds Python objects. The data comes from the tree's JSON (written and
read in C), and the splice's positions from where each view sits in the
buffer (rnodes.py), so a document is never handed to Python node by node.

This reading is only ever *offered*: ``read`` returns ``None`` for
anything it cannot settle exactly as the libyaml reading (load.py) would,
and the caller then takes that one, which stays the authority for errors,
their messages and locations. ``None`` goes to:

- every document outside the allow-list (allow.py: characters, line
  lengths, escapes and layouts shown equal to libyaml; scalars.py: YAML 1.1's
  types against rapidyaml's JSON);
- a repeated key, a number the JSON reader does not find canonical, a root
  that is not a block mapping, any parse error.

Nothing this reading gives is checked by itself: the read back of a
rewritten document is libyaml's (verify.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tfpolicy.records import Record
from tfpolicy.yamlio.allow import declined
from tfpolicy.yamlio.rapid import ryml
from tfpolicy.yamlio.screen import document_root, json_of, json_text, quietly

_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CANONICAL_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")


class Read(Record):
    """A document read the fast way: its data, and what positions are computed from."""

    data: Any
    text: str
    source: bytes  # the text as UTF-8, unchanged
    buffer: bytearray  # what rapidyaml parsed in place (its scalars filtered inside)
    tree: Any
    root: int  # the document's node in ``tree``


def read(text: str) -> Read | None:
    """``text`` read by rapidyaml, or ``None`` when libyaml must read it (see the module)."""
    parsed = _parse(text)
    if parsed is None:
        return None
    source, buffer, tree, root = parsed
    data = _data(tree, root, len(source))
    if data is None:
        return None
    return Read(data, text, source, buffer, tree, root)


def _parse(text: str) -> tuple[bytes, bytearray, Any, int] | None:
    """rapidyaml's tree of a text the allow-list lets through, rooted at one block mapping."""
    if declined(text):
        return None
    try:
        source = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: libyaml's reading names them
        return None
    buffer = bytearray(source)
    try:
        tree = quietly(ryml.parse_in_place, buffer)
    except Exception:  # any refusal: libyaml says what is wrong, and where
        return None
    root = document_root(tree)
    if root is None or root < 0 or not tree.is_map(root) or tree.is_flow(root):
        return None  # empty, not one mapping, or JSON-like: libyaml's JSON writer path
    return source, buffer, tree, root


def _data(tree: Any, root: int, size_hint: int) -> Any:
    try:
        return _DECODER.decode(json_text(json_of(tree, root, size_hint)))
    except Exception:  # a repeated key, a number not in canonical form, JSON it could not write
        return None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise ValueError("repeated key")
    return mapping


def _int(text: str) -> int:
    """A canonical integer kubectl reads as one (beyond 64 bits it reads a float)."""
    if not _CANONICAL_INT.fullmatch(text):
        raise ValueError(text)
    value = int(text)
    if len(text) > 18 and not -(1 << 63) <= value < 1 << 64:
        raise ValueError(text)
    return value


def _float(text: str) -> float:
    if not _CANONICAL_FLOAT.fullmatch(text):
        raise ValueError(text)
    return float(text)


def _refuse(text: str) -> Any:
    raise ValueError(text)


# One decoder for every document: ``json.loads`` with hooks builds a new one per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_int=_int, parse_float=_float,
                            parse_constant=_refuse)
