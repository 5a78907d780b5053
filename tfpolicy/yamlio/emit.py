"""Writing new YAML text: scalars quoted only where some YAML reader would misread them.

kubectl reads manifests with go-yaml v2 (goyaml.py), so ``y``, ``0X1F`` or
``1e3_`` written plain would stop being strings there; libyaml with PyYAML's
YAML 1.1 table reads ``1:30`` and ``yes`` as numbers and booleans, and YAML
1.2 readers (go-yaml v3, ruamel.yaml, kyaml in kpt and kustomize) read
``0o17`` and ``1e3`` as numbers. A string goes plain only when every one of
them reads it as that string (kustomize's kyaml guards the same way).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from tfpolicy.yamlio import goyaml

_RESOLVER = yaml.resolver.Resolver()
_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./ \-+=~@()]*$")
# What YAML 1.2 readers (ruamel.yaml's table, the 1.2 core schema) read as numbers beyond
# YAML 1.1's and go-yaml's patterns: underscores where they like, "0o" octal.
_NUMBER_LIKE = re.compile(
    r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9_]+)?"
    r"|[-+]?0[bBoOxX]?[0-9a-fA-F_]*"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


def scalar(value: object) -> str:
    """The YAML text of a scalar value, plain where that reads back identically."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _is_plain_safe(text):
        return text
    if text.isprintable():  # single quotes take a backslash as it is: a record stays readable
        if '"' not in text and "\\" not in text:
            return f'"{text}"'
        if "'" not in text:
            return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _float(value: float) -> str:
    """A float YAML 1.1 reads back as one: ``.inf``; ``1.0e+20`` (``1e+20`` is a string)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    return text.replace("e", ".0e", 1) if "e" in text and "." not in text else text


def _is_plain_safe(text: str) -> bool:
    if not _PLAIN_SAFE.fullmatch(text) or text.endswith(" ") or " #" in text:  # "$" passes "\n"
        return False
    if _NUMBER_LIKE.fullmatch(text) or goyaml.plain_tag(text) != goyaml.STR:
        return False
    tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return bool(tag == "tag:yaml.org,2002:str")


def block(key: object, value: Any, indent: int, step: int, newline: str) -> str:
    """``key: value`` as block YAML lines at ``indent`` (nested collections ``step`` deeper)."""
    pad = " " * indent
    if isinstance(value, Mapping | list) and value:
        return f"{pad}{scalar(key)}:{newline}{entries(value, indent + step, step, newline)}"
    return f"{pad}{scalar(key)}: {flow_text(value)}{newline}"


def entries(value: Mapping[Any, Any] | list[Any], indent: int, step: int, newline: str) -> str:
    """A non-empty collection's entries as block lines at ``indent``."""
    if isinstance(value, Mapping):
        return "".join(block(k, v, indent, step, newline) for k, v in value.items())
    return "".join(_item(v, indent, step, newline) for v in value)


def _item(value: Any, indent: int, step: int, newline: str) -> str:
    if isinstance(value, Mapping | list) and value:
        inner = entries(value, indent + 2, step, newline)
        return " " * indent + "- " + inner[indent + 2:]  # first entry on the dash's line
    return f"{' ' * indent}- {flow_text(value)}{newline}"


def flow_text(value: Any) -> str:
    """A value as flow YAML on one line (plain scalars never hold ``,[]{}``)."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{scalar(k)}: {flow_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow_text(v) for v in value) + "]"
    return scalar(value)


def dump_documents(docs: list[Any]) -> str:
    """New documents (admission output, reports) as a block-style YAML stream."""
    return yaml.dump_all(
        docs, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False,
        allow_unicode=True, explicit_start=True, width=1 << 16,
    )
