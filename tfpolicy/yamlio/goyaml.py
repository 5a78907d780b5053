"""How kubectl types a plain scalar, and spells a mapping key, when it reads YAML.

kubectl reads a manifest with sigs.k8s.io/yaml, which decodes YAML with go-yaml
v2 and converts the result to JSON. A plain scalar is typed by go-yaml's
``resolve`` (go-yaml v2 ``resolve.go`` lines 20-57 and 86-197, as forked in
kubernetes-sigs/yaml ``goyaml.v2/resolve.go``), mirrored here:

- the words ``y Y yes Yes YES true True TRUE on On ON`` are true, the same
  with ``n no false off`` false, ``~ null Null NULL`` and the empty scalar
  null, ``.inf .nan`` (and their spellings) floats: nothing else of YAML
  1.1's table (``=`` is a string; base 60 is gone: ``1:30`` is a string);
- a scalar opening with a digit or a sign is, with every ``_`` removed, an
  integer as Go's ``strconv.ParseInt(s, 0, 64)`` reads it (``0x``, ``0X``,
  ``0o``, ``0O``, ``0b``, ``0B``, a leading ``0`` for octal), else an unsigned
  one up to 2^64 - 1, else a float when it looks like one
  (``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``: ``1e3``, ``09``,
  ``-.5``), else a string; a float Go cannot hold (``1e400``) is a string;
- one opening with ``.`` is a float when ``strconv.ParseFloat`` reads it
  (``_`` allowed between digits), else a string;
- a timestamp stays a string (go-yaml v2 ``decode.go`` keeps it one for an
  untyped value), as it does here.

One reading is refused rather than followed: a number of more than 4,300
digits, which kubectl reads as text, tfpolicy refuses (``TOO_LARGE``), as it
always did: Python will not read such an integer (a denial-of-service guard),
and no Kubernetes field holds one. A shorter one too large for Go
(``1e400``) is text, as kubectl reads it.

sigs.k8s.io/yaml then gives every key its JSON spelling (``yaml.go``
``convertToJSONableObject``): a boolean ``true``/``false``, an integer in
decimal, a float as Go's ``strconv.FormatFloat(f, 'g', -1, 32)``; a null key
or an integer key of 2^63 or more is an error. ``json.Marshal`` refuses an
infinite or NaN value, so kubectl refuses a manifest holding one.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

_T = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, MERGE = (_T + n for n in ("str", "int", "float", "bool", "null",
                                                       "merge"))
# Written as a number of more than MAX_DIGITS digits: kubectl reads it as text, tfpolicy
# refuses it (Python's own guard against reading such integers: a denial of service).
TOO_LARGE = "tag:tfpolicy.dev,2026:too-large"
MAX_DIGITS = 4300
_WORDS: dict[str, tuple[str, Any]] = {
    **{w: (BOOL, True) for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                 "on", "On", "ON")},
    **{w: (BOOL, False) for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                  "off", "Off", "OFF")},
    **{w: (NULL, None) for w in ("", "~", "null", "Null", "NULL")},
    **{w: (FLOAT, math.nan) for w in (".nan", ".NaN", ".NAN")},
    **{s + w: (FLOAT, math.inf) for s in ("", "+") for w in (".inf", ".Inf", ".INF")},
    **{"-" + w: (FLOAT, -math.inf) for w in (".inf", ".Inf", ".INF")},
}
_NUMBER_START = frozenset("+-0123456789")
# The first characters of a plain scalar that may not be a string (the empty one aside;
# "<" for the merge key, which go-yaml tells by its text).
WATCHED = frozenset("yYnNtTfFoO~.<") | _NUMBER_START
_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
_DIGITS = {2: re.compile("[01]+"), 8: re.compile("[0-7]*"), 10: re.compile("[0-9]+"),
           16: re.compile("[0-9a-fA-F]+")}
_MAX_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}  # more (leading zeros aside) is over 2^64
_PREFIX = {"b": 2, "B": 2, "o": 8, "O": 8, "x": 16, "X": 16}
# An integer Go's syntax reads, whatever its size (decimal ones are _STYLE_FLOAT's).
_PREFIXED = re.compile(r"[-+]?0(?:[bB][01]+|[oO][0-7]+|[xX][0-9a-fA-F]+|[0-7]+)")


def plain_tag(text: str) -> str:
    """The tag of a plain scalar as kubectl types it (``<<`` is the merge key's tag: a key
    it merges, a value the string ``<<``)."""
    if text and text[0] not in WATCHED:
        return STR
    if text == "<<":
        return MERGE
    return resolve(text)[0]


def resolve(text: str) -> tuple[str, Any]:
    """The tag and value go-yaml v2 gives a plain scalar ``text`` (see the module)."""
    found = _WORDS.get(text)
    if found is not None:
        return found
    first = text[:1]
    if first == ".":
        if not _DOT_FLOAT.fullmatch(text):
            return STR, text
        value = _float(text.replace("_", ""))
        return (FLOAT, value) if value is not None else _text_or_too_long(text)
    if first in _NUMBER_START:
        return _number(text)
    return STR, text


def _number(text: str) -> tuple[str, Any]:
    plain = text.replace("_", "")
    whole = _parse_int(plain)
    if whole is None:
        whole = _parse_uint(plain)
    if whole is not None:
        return INT, whole
    if _STYLE_FLOAT.fullmatch(plain):
        value = _float(plain)
        return (FLOAT, value) if value is not None else _text_or_too_long(text)
    if plain.startswith("0b"):  # go-yaml's own binary branch: "0b-1" is -1 there
        whole = _parse_int(plain[2:], 2)
        if whole is None:
            whole = _parse_uint(plain[2:], 2)
    elif plain.startswith("-0b"):
        whole = _parse_int("-" + plain[3:], 2)
    if whole is None:
        return _text_or_too_long(text) if _PREFIXED.fullmatch(plain) else (STR, text)
    return INT, whole


def _text_or_too_long(text: str) -> tuple[str, Any]:
    """A number too large for Go is text to kubectl; past Python's own limit for reading an
    integer (4,300 digits) it is refused, as tfpolicy always refused it."""
    return (TOO_LARGE, text) if len(text) > MAX_DIGITS else (STR, text)


def _parse_uint(text: str, base: int = 0) -> int | None:
    """Go's ``strconv.ParseUint(text, base, 64)`` (``text`` holds no ``_``), or ``None``."""
    if not text:
        return None
    if base == 0:
        base = 10
        if text[0] == "0" and len(text) >= 3 and text[1] in _PREFIX:
            base, text = _PREFIX[text[1]], text[2:]
        elif text[0] == "0":
            base, text = 8, text[1:]  # "0" itself leaves nothing: zero
    if not _DIGITS[base].fullmatch(text):
        return None
    digits = text.lstrip("0")
    if len(digits) > _MAX_DIGITS[base]:
        return None
    value = int(digits, base) if digits else 0
    return value if value < 1 << 64 else None


def _parse_int(text: str, base: int = 0) -> int | None:
    """Go's ``strconv.ParseInt(text, base, 64)``, or ``None``."""
    negative = text[:1] == "-"
    magnitude = _parse_uint(text[1:] if text[:1] in ("+", "-") else text, base)
    if magnitude is None or magnitude > (1 << 63) - (not negative):
        return None
    return -magnitude if negative else magnitude


def _float(text: str) -> float | None:
    """A float Go can hold: ``strconv.ParseFloat`` fails where Python gives infinity."""
    value = float(text)
    return None if math.isinf(value) else value


def key_text(key: Any) -> str | None:
    """A mapping key as sigs.k8s.io/yaml spells it in JSON, or ``None`` where it refuses
    the key (null, an integer of 2^63 or more, a collection)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key) if -(1 << 63) <= key < 1 << 63 else None
    if isinstance(key, float):
        return _float32_g(key)
    return None


def _float32_g(value: float) -> str:
    """Go's ``strconv.FormatFloat(value, 'g', -1, 32)``, infinities and NaN as YAML spells
    them (go-yaml's own conversion of a float key)."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # beyond float32: Go's conversion gives an infinity
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    digits, exponent = _shortest(single)
    sign = "-" if single < 0 else ""
    if exponent < -4 or exponent >= 6:  # %e, as Go's shortest %g decides
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest(single: float) -> tuple[str, int]:
    """The fewest significant digits that read back as the float32 ``single``, and the
    decimal exponent of the first."""
    for places in range(9):
        text = f"{abs(single):.{places}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == abs(single):
            break
    mantissa, _, exponent = text.partition("e")
    return mantissa.replace(".", "").rstrip("0") or "0", int(exponent)
