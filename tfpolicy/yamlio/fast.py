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

- what the screen (screen.py) already sends to libyaml: anchors, aliases,
  tags, directives, reserved indicators, characters YAML forbids;
- a ``\\r`` (libyaml's line arithmetic for it is kept in one place), an
  explicit key (``?``), a merge key (``<<``);
- a plain scalar that YAML 1.1, as libyaml's resolver reads it, types
  otherwise than rapidyaml's JSON does (``yes``/``on``/``True``, ``~``/``Null``,
  a number or boolean used as a key), and any number not in canonical form
  (``0x1F``, ``1_000``, ``07``, ``1:30``, ``1.``, ``-.5``): only ``1``, ``-2``,
  ``1.5``, ``true``, ``false`` and ``null`` are read here, and the JSON reader
  checks each number rapidyaml writes against them;
- any standalone inf or nan word, quoted or not: rapidyaml's JSON writer
  respells a plain ``infinity`` value as ``.inf`` and a key ``'-.Inf'`` as
  ``-.inf``;
- a repeated key, a root that is not a block mapping, any parse error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import ryml  # type: ignore[import-untyped]
import yaml

from tfpolicy.yamlio.screen import document_root, json_of, json_text, libyaml_only, quietly

_STR_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:timestamp")
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CANONICAL_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
# A plain token that may not read as a string, where a scalar starts and ends; canonical
# values (which both readings type alike) are skipped unless a colon makes them a key.
_TERM = r"(?=[ \t]*(?:[#,\]}\n]|$|:(?:[ \t\n]|$)))"
_TOKEN = re.compile(
    r"[\s\[{,](?=[-+0-9.~=<yYnNtTfFoO])"
    r"(?!(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|true|false|null)[ \t]*(?:[#,\]}\n]|$))"
    r"([-+]?[0-9.](?:[0-9a-fA-FxX_.+-]|:(?=[0-9a-fA-FxX_.+-]))*|~|=|<<|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE"
    r"|[oO]n|ON|[oO]ff|OFF|[nN]ull|NULL)" + _TERM,
    re.MULTILINE,
)
# A number-like token not in canonical form (canonical ones never match _TOKEN as values):
# rapidyaml's JSON writer may respell it canonically (".5" and "-.5" as 0.5 and -0.5, "1."
# as 1.0) where YAML 1.1 reads another value or a string ("-.5" is one).
_NUMBERISH = frozenset("-+0123456789.")
# Scalars rapidyaml's JSON writer spells otherwise: a plain ``infinity`` value becomes
# ".inf", and a key spelling inf or nan, quoted or not, its canonical form ('-.Inf' and
# 'inf' become "-.inf" and ".inf"). Any such word in the text sends it to libyaml.
_INF_OR_NAN = re.compile(r"(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])(?![\w.-])")
_EXPLICIT_OR_MERGE = re.compile(r"^[ \t]*(?:-[ \t]+)*\?(?:[ \t]|$)|(?:^|[\s{,])<<[ \t]*:",
                                re.MULTILINE)
_RESOLVER = yaml.resolver.Resolver()
# The data as rapidyaml writes its JSON on one line (screen.json_of).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ": "), allow_nan=False)


@dataclass(frozen=True, slots=True)
class Read:
    """A document read the fast way: its data, and what positions are computed from."""

    data: Any
    text: str
    source: bytes  # the text as UTF-8, unchanged
    buffer: bytearray  # what rapidyaml parsed in place (its scalars filtered inside)
    tree: Any
    root: int  # the document's node in ``tree``


def read(text: str, *, screened: str = "") -> Read | None:
    """``text`` read by rapidyaml, or ``None`` when libyaml must read it (see the module).

    ``screened`` is a text this reading accepted (a document before its
    edits): its lines are not screened again (see ``unscreened``).
    """
    parsed = _parse(text, screened)
    if parsed is None:
        return None
    source, buffer, tree, root = parsed
    data = _data(tree, root, len(source))
    if data is None:
        return None
    return Read(data, text, source, buffer, tree, root)


def surely_reads_as(text: str, intended: Any, screened: str) -> bool:
    """True when ``text`` certainly reads as ``intended``; False is "not known", never "no".

    The tree's JSON, written on one line (``screen.json_of``), is compared
    with ``intended`` written by ``json.dumps`` in the same form (``": "``
    after a key, ``","`` between items; a line break inside a string is
    ``\\n`` in both). Equal JSON texts are
    equal data, types included (``1``, ``1.0``, ``true`` and ``"1"`` are
    written apart) and keys counted (a repeated key shows twice); the screens
    that let the tree be read at all make its JSON types YAML 1.1's. About
    twice as fast as building the data and comparing it; the caller does
    that whenever this says False. ``intended`` must have string keys only:
    ``json.dumps`` writes a key ``1`` as ``"1"``.
    """
    parsed = _parse(text, screened)
    if parsed is None:
        return False
    tree, root = parsed[2], parsed[3]
    try:
        expected = _JSON.encode(intended).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError):  # nan, a lone surrogate, no JSON type
        return False
    return json_of(tree, root, len(parsed[0])) == expected


def _parse(text: str, screened: str) -> tuple[bytes, bytearray, Any, int] | None:
    """rapidyaml's tree of a text the screens let through, rooted at one block mapping."""
    if declined(unscreened(text, screened)):
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


def declined(text: str) -> bool:
    """Whether a screen sends ``text`` to libyaml; each looks at one line at a time."""
    if "\r" in text or libyaml_only(text) or _explicit_or_merge(text):
        return True
    return _respelled(text) or _typed_otherwise(text)


def unscreened(text: str, screened: str) -> str:
    """The lines of ``text`` (in order, with their line ends) that ``screened`` lacks.

    Every screen looks at one line at a time and at no other (a match starts
    after a line break or inside the line, and ends at the line's end at the
    latest), so a line already screened in ``screened`` passes again: the read
    back of a spliced document screens only the lines the splice wrote.
    """
    if not screened:
        return text
    known = set(screened.split("\n")[:-1])  # whole lines only: the last may lack its end
    lines = text.split("\n")
    kept = [line + "\n" for line in lines[:-1] if line not in known]
    return "".join(kept) + lines[-1]


def _explicit_or_merge(text: str) -> bool:
    return ("?" in text or "<<" in text) and _EXPLICIT_OR_MERGE.search(text) is not None


def _respelled(text: str) -> bool:
    """An inf or nan word standing alone (a sign and a dot may open it): see _INF_OR_NAN."""
    if not text.isascii():
        return any(_alone(text, m.start()) for m in _INF_OR_NAN.finditer(text))
    # ASCII lowercases in place: a plain substring search finds every place the
    # pattern can match, several times faster than the pattern's own scan.
    lower = text.lower()
    for word in ("inf", "nan"):
        at = lower.find(word)
        while at >= 0:
            if _INF_OR_NAN.match(text, at) and _alone(text, at):
                return True
            at = lower.find(word, at + 1)
    return False


def _alone(text: str, at: int) -> bool:
    """Nothing that continues a word before the word at ``at`` (its sign and dot aside)."""
    at -= at > 0 and text[at - 1] == "."
    at -= at > 0 and text[at - 1] in "+-"
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_.+-")


def _typed_otherwise(text: str) -> bool:
    """A plain scalar whose YAML 1.1 type the JSON reading would not give."""
    for match in _TOKEN.finditer("\n" + text):  # the newline: a token may open the text
        token = match.group(1)
        if token[0] in _NUMBERISH:
            return True  # respelled by the JSON writer, or a number not in canonical form
        tag = _RESOLVER.resolve(yaml.ScalarNode, token, (True, False))  # type: ignore[no-untyped-call]
        if tag not in _STR_TAGS:
            return True
    return False


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
    if not _CANONICAL_INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _float(text: str) -> float:
    if not _CANONICAL_FLOAT.fullmatch(text):
        raise ValueError(text)
    return float(text)


def _refuse(text: str) -> Any:
    raise ValueError(text)


# One decoder for every document: ``json.loads`` with hooks builds a new one per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_int=_int, parse_float=_float,
                            parse_constant=_refuse)
