"""What rapidyaml may read: an allow-list of characters and layouts shown equal to libyaml.

rapidyaml (``ryml``) reads a document (fast.py, and screen.py's check of the
documents the engine need not read) only when every rule below holds; any
other document goes to libyaml, the authority. The list is positive: what is
not named here is libyaml's, so a difference between the two readers that
nobody has found yet falls on libyaml's side as long as it involves anything
beyond this list. The property test ``tests/yamlio/test_yaml_hostile.py`` draws
documents full of what is left out (and of what is let in) and checks that
whatever the fast path takes, libyaml takes too and reads alike, types
included.

Characters:

- printable ASCII (U+0020 to U+007E) and the line feed;
- beyond ASCII, only letters, marks, numbers, punctuation and symbols
  (Unicode categories L*, M*, N*, P*, S*): never a separator (Z*: U+00A0,
  U+2028 LS, U+2029 PS) nor anything of C* (U+0085 NEL, the byte order mark
  U+FEFF, controls, format characters, surrogates, private use,
  unassigned). libyaml breaks lines at NEL, LS and PS, where rapidyaml reads
  on: in a comment one hid the key after it;
- no tab anywhere (rapidyaml takes ``key:\\t2``, a tab-only line and a tab
  before a key, which libyaml reads otherwise or refuses) and no carriage
  return.

Lines: at most ``MAX_LINE`` characters, so no implicit key can reach
libyaml's 1,024 characters, beyond which libyaml refuses it and rapidyaml
does not.

Escapes: a backslash only in the runs a double-quoted scalar reads as
``\\\\``, ``\\"``, ``\\n``, ``\\t`` and ``\\/``, wherever it stands (in a plain
or single-quoted scalar it is only itself, for both readers). Every other
escape goes to libyaml: it refuses surrogates (``\\ud83d``), and ``\\N``,
``\\L``, ``\\P``, ``\\_``, ``\\x..``, ``\\u....`` spell characters, and a
backslash at a line's end folds the line.

Layouts (``forms``), each found on one line:

- a directive (``%``);
- where a token may open (at a line's start after blanks, after a flow
  indicator, or after ``:``, ``?`` or ``-`` and blanks): a token opening
  with ``@``, a backquote, ``!`` (a tag), ``&`` or ``*`` (an anchor or alias,
  whatever follows: ``& x`` too); with ``]``, ``}`` or ``,`` after a blank (a
  stray closing bracket opens no plain scalar for libyaml, though it does for
  rapidyaml); with a block scalar header other than ``|`` or ``>`` with at
  most a chomping indicator (``-``, ``+``) before a comment or the line's end
  (``|2``, ``|1:30``, ``|x``). Inside a scalar (``a > 2``, ``"58 2 * * *"``)
  both readers read these alike;
- anywhere: ``:`` or ``?`` after a blank and before a blank or a flow
  indicator (an empty key ``: v``, an explicit key), ``<<`` (a merge key);
- a flow collection left open at a line's end; a line whose flow collection
  holds anything but brackets, commas, ``": "``, blanks, plain words of
  ``[A-Za-z0-9_./+=()$-]`` and quoted scalars without escapes (a comment hides
  the closing bracket of ``{name: t #x}``; libyaml refuses ``{name:?x}``);
- a closing bracket followed on its line by anything but blanks, another closing
  bracket, a comma or a comment (libyaml refuses ``{a: b} c`` and ``[{a: b} c]``,
  which rapidyaml reads on, and ``{a: b}: c`` is a complex key).

Scalars: the typing screens of scalars.py (YAML 1.1's types against
rapidyaml's JSON) are the last word.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from tfpolicy.yamlio import scalars

MAX_LINE = 1000  # characters: under libyaml's 1,024 for an implicit key (scanner.c)
_ASCII = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n"}
_ASCII_BYTES = "".join(sorted(_ASCII)).encode("ascii")
_CATEGORIES = frozenset("LMNPS")
# A backslash run whose last backslash escapes something outside the safe set (or the
# text's end): possessive, so each run is looked at once.
_UNSAFE_ESCAPE = re.compile(r'(?<!\\)(?:\\\\)*+\\(?![\\"nt/])')
# An indicator libyaml reads otherwise (see the module), after a line's start, a blank or
# a flow indicator; searched in "\n" + text. The indicator opens the pattern, so the regex
# engine skips to the next one at once. ": " and "? " after a blank, and "<<", count
# wherever they stand (": " ends a plain scalar anywhere); the others only where a token
# opens (``_opens_token``): inside a scalar ("a > 2", "58 2 * * *") both read them alike.
_INDICATOR = re.compile(r"[:?<](?<=[\s\[{,].)(?:(?<=[:?])(?=[\s\]},]|$)|(?<=<)<)", re.MULTILINE)
_AT_TOKEN = re.compile(r"[@`!&*|>\]},](?<=[\s\[{,].)"
                       r"(?:(?<=[@`!&*])|(?<=\s[\]},])|(?<=[|>])(?![-+]?(?: +#| *$)))",
                       re.MULTILINE)
_TOKEN_OPENERS = frozenset("\n[{,:?-")
# A flow collection whose last bracket on the line opens: searched from each opener to the
# next bracket or the line's end only (possessive), so a line is read once however many
# brackets it holds.
_OPEN_FLOW = re.compile(r"[\[{][^\[\]{}\n]*+$", re.MULTILINE)
# A line whose flow collection holds more than the simple tokens: from the line's start,
# over quoted scalars closed on the line, to its first opener; then brackets, commas,
# ": ", blanks, plain words and quoted scalars without escapes, a match stopping short of
# the line's end; or an opener after a quote left open. Possessive: one pass per line.
# A closing bracket with more than blanks, closers, a comma or a comment after it on its
# line (see the module): possessive over the blanks, so each bracket is looked at once.
_AFTER_CLOSE = re.compile(r"[\]}] *+[^\s\]},#]")
_QUOTED = r"""(?:"[^"\\\n]*+"|'[^'\n]*+')"""
_FLOW_LINE = re.compile(r"""\n[^\[{"'\n]*+(?:""" + _QUOTED + r"""[^\[{"'\n]*+)*+"""
                        r"""(?:["'][^\[{\n]*+[\[{]|[\[{]"""
                        r"(?:[\[\]{}, A-Za-z0-9_./+=()$-]++|: |" + _QUOTED + r")*+"
                        r"(?!\n|\Z))")


def declined(text: str) -> bool:
    """Whether ``text`` must go to libyaml: outside the allow-list, or a scalar whose type
    or spelling rapidyaml's JSON would not give (scalars.py)."""
    return not admitted(text) or scalars.retyped(text)


def admitted(text: str) -> bool:
    """Whether ``text``'s characters, lines, escapes and layouts are all on the list; each
    check reads the text once (lines are bounded before any pattern looks at them)."""
    return (_characters(text) and _lines(text) and _escapes(text)
            and not text.startswith("%") and "\n%" not in text and not _forms(text))


def _characters(text: str) -> bool:
    if text.isascii():  # bytes.translate drops every allowed character in one C loop
        return not text.encode("ascii").translate(None, _ASCII_BYTES)
    return all(_allowed(c) for c in set(text) - _ASCII)


@lru_cache(maxsize=4096)
def _allowed(char: str) -> bool:
    return char > "\x7f" and unicodedata.category(char)[0] in _CATEGORIES


def _lines(text: str) -> bool:
    return len(text) <= MAX_LINE or max(map(len, text.split("\n"))) <= MAX_LINE


def _escapes(text: str) -> bool:
    return "\\" not in text or _UNSAFE_ESCAPE.search(text) is None


def _opens_token(lines: str, at: int) -> bool:
    """Whether a token may open at ``at``: only blanks between it and a line's start, a flow
    indicator, or a ``:``, ``?`` or ``-`` (a superset: ``a- *b`` counts too)."""
    at -= 1
    while lines[at] == " ":  # lines[0] is "\n": the loop stops there at the latest
        at -= 1
    return lines[at] in _TOKEN_OPENERS


def _forms(text: str) -> bool:
    """An indicator layout or an open flow collection (see the module)."""
    lines = "\n" + text
    if _INDICATOR.search(lines) is not None:
        return True
    if any(_opens_token(lines, m.start()) for m in _AT_TOKEN.finditer(lines)):
        return True
    if "[" not in text and "{" not in text:
        return False
    if _OPEN_FLOW.search(text) is not None or _AFTER_CLOSE.search(text) is not None:
        return True
    first = min(at for at in (lines.find("["), lines.find("{")) if at >= 0)
    return _FLOW_LINE.search(lines, lines.rfind("\n", 0, first)) is not None
