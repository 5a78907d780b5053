"""The safety net: a rewritten document is parsed again and must equal the intended data.

Each way of writing a document is tried in turn, cheapest and most
faithful to the original layout first: JSON stays JSON, the splice keeps
every other byte, and ruamel.yaml's round trip re-emits the document. The
first text that reads back as exactly ``apply_edits(data, edits)`` wins
(computed by ``edited``, which copies only what the edits touch).
Only edited documents get here, so unedited ones are never parsed twice.

The read back is libyaml's (PyYAML's C loader, with the Kubernetes typing
of load.py: readback.py), never the fast reading that may have read the document the
edits were planned on: a net that reads with the reader it guards fails
with it (docs/yaml.md, "The check of every rewrite").
"""

from __future__ import annotations

import re
from typing import Any

from tfpolicy.edits import Edit, edited
from tfpolicy.yamlio import jsondoc, jsonsplice
from tfpolicy.yamlio.lines import unterminated
from tfpolicy.yamlio.load import Parsed
from tfpolicy.yamlio.readback import reads_as
from tfpolicy.yamlio.stream import RawDoc, newline_of

# A marker line, searched in "\n" + text: the literal line break leads the search (a
# "^" pattern is tried at every position, five times slower).
_MARKERS = re.compile(r"\n(?:---|\.\.\.)(?=[ \t\r\n]|$)")
# What a writer raises on layouts it cannot edit (a merged key, a flow document
# the round trip reads as another shape, nesting near libyaml's limit of 1,000 levels
# deeper than ruamel.yaml's recursion goes): a refusal, never a traceback.
_FALLBACK_FAILURES = (KeyError, IndexError, TypeError, ValueError, AttributeError,
                      RecursionError)


def first_faithful(raw: RawDoc, parsed: Parsed, edits: list[Edit], file: str, *,
                   quick: bool = False) -> str | None:
    """The first rewrite of ``raw`` that parses to the intended data, or ``None``.

    ``quick`` tries only the writers that keep the layout (the splice): the
    round trip is left for a reading with libyaml's own node tree. A JSON
    document is written as JSON, in place or whole, and read back as JSON;
    never as YAML, which kubectl would read as JSON and refuse.
    """
    intended = edited(parsed.data, edits)
    newline = newline_of(raw.text)
    if jsondoc.read(raw.text) is not None:
        for json_writer in (jsonsplice.splice, jsonsplice.whole):
            text = json_writer(raw.text, edits, newline)
            if text is not None and jsondoc.reads_as(text, raw.text, intended):
                return text
        return None
    for writer in (_splice,) if quick else (_splice, _round_trip):
        try:
            text = writer(raw, parsed, edits, newline, intended)
        except _FALLBACK_FAILURES:
            continue
        if text is not None and reads_back(text, raw.text, intended, file):
            return text
    return None


def _splice(raw: RawDoc, parsed: Parsed, edits: list[Edit], newline: str,
            intended: Any) -> str | None:
    from tfpolicy.yamlio.splice import splice

    assert parsed.node is not None
    return splice(raw.text, parsed.node, edits, newline, intended)


def _round_trip(raw: RawDoc, parsed: Parsed, edits: list[Edit], newline: str,
                intended: Any) -> str | None:
    # Imported here: only a layout the splice cannot handle needs ruamel.yaml at all.
    from ruamel.yaml.error import YAMLError as RuamelError

    from tfpolicy.yamlio.rt import rewrite

    assert parsed.node is not None
    try:
        text = rewrite(raw.text, parsed.node, edits, newline)
    except RuamelError:
        return None  # refused, as for the other failures
    if raw.text.endswith(("\n", "\r")):
        return text
    return unterminated(text)  # the emitter ends every line; the file's last one did not


def reads_back(text: str, original: str, intended: Any, file: str) -> bool:
    """``text`` is one document, ends a line where ``original`` did, and libyaml reads it as
    exactly ``intended``, types included."""
    if original.endswith(("\n", "\r")) and not text.endswith(("\n", "\r")):
        return False  # the next document's "---" would join its last line
    if _marker_lines(text) != _marker_lines(original):
        return False  # a lost "---" joins this document to the one before; a new one splits it
    return reads_as(text, intended)


def _marker_lines(text: str) -> int:
    return len(_MARKERS.findall("\n" + text))
