"""The metric names a PromQL expression reads, for the did-you-mean of a gate whose query
names a metric no Prometheus holds (docs/gates.md, "Errors").

Not a parser: strings, label matchers (``{...}``), ranges and subqueries (``[...]``) and
the label lists of ``by``/``without``/``on``/``ignoring``/``group_left``/``group_right``
are taken out, then every name not called as a function, not a keyword and not a number
is a metric name (Prometheus ``promql/parser/lex.go`` names the keywords).
"""

from __future__ import annotations

import re

from tfpolicy.suggest import closest

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_BRACKETS = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")
_LISTS = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_NAME = re.compile(r"(?<![\w:.])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?")
_KEYWORDS = frozenset({"and", "or", "unless", "bool", "offset", "by", "without", "on",
                       "ignoring", "group_left", "group_right", "atan2", "inf", "nan", "start",
                       "end", "e"})


def metric_names(query: str) -> list[str]:
    """The metric names ``query`` reads, in order of first appearance, each once."""
    text = _STRING.sub(" ", query)
    while True:
        flat = _BRACKETS.sub(" ", text)
        if flat == text:
            break
        text = flat
    text = _LISTS.sub(" ", text)
    found: list[str] = []
    for match in _NAME.finditer(text):
        name, called = match.group(1), match.group(2)
        if called or name.lower() in _KEYWORDS or name in found:
            continue
        found.append(name)
    return found + [n for n in _selected(query) if n not in found]


_SELECTED = re.compile(r'__name__\s*=\s*"([A-Za-z_:][A-Za-z0-9_:]*)"')


def _selected(query: str) -> list[str]:
    """Names given as ``{__name__="..."}`` (an exact match; a regex is no one name)."""
    return _SELECTED.findall(query)


def unknown_metric(query: str, known: frozenset[str]) -> tuple[str, str | None] | None:
    """The first metric ``query`` reads that ``known`` lacks, and the known name closest
    to it; None when every name is known."""
    for name in metric_names(query):
        if name not in known:
            return name, closest(name, sorted(known))
    return None
