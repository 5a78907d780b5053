"""The typing screens: plain scalars YAML 1.1 types otherwise than rapidyaml's JSON does.

Part of the allow-list (allow.py): the fast reading takes its types from the
JSON rapidyaml writes, so a document goes to libyaml when it holds

- a plain scalar that YAML 1.1, as libyaml's resolver reads it, types
  otherwise (``yes``/``on``/``True``, ``~``/``Null``, a number or boolean used
  as a key), and any number not in canonical form (``0x1F``, ``1_000``,
  ``07``, ``1:30``, ``1.``, ``-.5``): only ``1``, ``-2``, ``1.5``, ``true``,
  ``false`` and ``null`` are read fast, and the JSON reader checks each number
  rapidyaml writes against them;
- any standalone inf or nan word, quoted or not: rapidyaml's JSON writer
  respells a plain ``infinity`` value as ``.inf`` and a key ``'-.Inf'`` as
  ``-.inf``.
"""

from __future__ import annotations

import re

from tfpolicy.yamlio import goyaml

# A plain token that may not read as a string, where a scalar starts and ends; canonical
# values (which both readings type alike) are skipped unless a colon makes them a key.
_TERM = r"(?=[ \t]*(?:[#,\]}\n]|$|:(?:[ \t\n]|$)))"
_TOKEN = re.compile(
    r"[\s\[{,](?=[-+0-9.~=<yYnNtTfFoO])"
    r"(?!(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|true|false|null)[ \t]*(?:[#,\]}\n]|$))"
    r"([-+]?[0-9.](?:[0-9a-fA-FxXoO_.+-]|:(?=[0-9a-fA-FxXoO_.+-]))*|~|=|<<|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE"
    r"|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF|[nN]ull|NULL|[yYnN])" + _TERM,
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
# A key that may not read as a string were it plain: the words _TOKEN looks for, canonical
# numbers and words included (``1:`` and ``true:`` are keys libyaml types).
_KEY = re.compile(
    r"[-+]?[0-9.](?:[0-9a-fA-FxXoO_.+-]|:(?=[0-9a-fA-FxXoO_.+-]))*|~|=|<<|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE"
    r"|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF|[nN]ull|NULL|[yYnN]"
)


def retyped(text: str) -> bool:
    """Whether a scalar of ``text`` may read with another type or spelling (see above)."""
    return respelled(text) or typed_otherwise(text)


def respelled(text: str) -> bool:
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


def typed_key(key: str) -> bool:
    """Whether YAML 1.1 types ``key``, a mapping key as a reader gave it, otherwise than a
    string were it written plain (see _KEY)."""
    return _KEY.fullmatch(key) is not None and _not_string(key)


def _not_string(token: str) -> bool:
    if token[0] in _NUMBERISH:
        return True
    return goyaml.plain_tag(token) != goyaml.STR


def typed_otherwise(text: str) -> bool:
    """A plain scalar whose YAML 1.1 type the JSON reading would not give."""
    for match in _TOKEN.finditer("\n" + text):  # the newline: a token may open the text
        token = match.group(1)
        if token[0] in _NUMBERISH:
            return True  # respelled by the JSON writer, or a number not in canonical form
        if goyaml.plain_tag(token) != goyaml.STR:
            return True
    return False
