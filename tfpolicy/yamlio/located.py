"""libyaml's refusal of a text as one located line: ``file:line:col: invalid YAML: …``.

Every reader of YAML text refuses with it (load.py for a document,
boundaries.py for what lies between documents), so a refusal reads the same
wherever it is found, and unrendered Helm template syntax is named as such.
"""

from __future__ import annotations

import re

import yaml

from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio.construct import RepeatedKey

# Template actions where YAML expects a value, key or item: not inside quotes.
TEMPLATE_SYNTAX = re.compile(r"(?:^[ \t]*|:[ \t]+|-[ \t]+)\{\{", re.MULTILINE)


def located_error(exc: yaml.YAMLError, file: str, line: int, text: str) -> TfpolicyError:
    """libyaml's refusal of ``text`` (at 0-based ``line`` of ``file``) as one located line."""
    if isinstance(exc, yaml.MarkedYAMLError):
        return _located(exc, file, line, text)
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML forbids: point at it
        at = text.count("\n", 0, exc.position)
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return TfpolicyError(f"invalid YAML: control character #x{code:02x} is not allowed",
                             file=file, line=line + at + 1, column=column)
    return TfpolicyError(f"invalid YAML: {exc}", file=file, line=line + 1)


def _located(exc: yaml.MarkedYAMLError, file: str, line: int, text: str) -> TfpolicyError:
    template = TEMPLATE_SYNTAX.search(text)
    if template is not None:
        at = text.count("\n", 0, template.start())
        column = template.end() - 2 - (text.rfind("\n", 0, template.start()) + 1)
        return TfpolicyError("unrendered Helm template syntax ({{ … }}); render the chart with "
                             "`helm template` first", file=file, line=line + at + 1,
                             column=column + 1)
    mark = exc.problem_mark or exc.context_mark
    if exc.context_mark is not None and "end of stream" in str(exc.problem):
        mark = exc.context_mark  # an unclosed quote: point at where it opened
    reason = " ".join(str(p) for p in (exc.context, exc.problem) if p)
    if isinstance(exc, RepeatedKey):
        reason += f" (first at line {line + exc.first_line + 1})"
    if mark is None:
        return TfpolicyError(f"invalid YAML: {reason}", file=file, line=line + 1)
    if text[mark.index:mark.index + 1] == "\t":
        reason = "a tab character cannot indent YAML"
    return TfpolicyError(
        f"invalid YAML: {reason}", file=file, line=line + mark.line + 1, column=mark.column + 1
    )
