"""JSON Schema validation: the only module that imports jsonschema.

Schemas ship inside the package (``tfpolicy/schemas``) and are read with
importlib.resources, so an installed tfpolicy needs no checkout. jsonschema
is imported only when a document is validated: a run whose policies are all
built-in ones, checked when the package is tested (``tfpolicy.policy.known``),
never loads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from tfpolicy.policy.known import known_valid
from tfpolicy.records import Record
from tfpolicy.suggest import closest

if TYPE_CHECKING:
    import jsonschema


class Violation(Record):
    path: tuple[str | int, ...]
    message: str

    @property
    def json_path(self) -> str:
        out = "$"
        for item in self.path:
            out += f"[{item}]" if isinstance(item, int) else f".{item}"
        return out


@cache
def load_schema(name: str) -> dict[str, Any]:
    from importlib import resources  # here: with jsonschema, only to validate

    text = resources.files("tfpolicy").joinpath("schemas", f"{name}.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    import jsonschema  # here: only for a policy the user wrote (docs/speed.md)

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def validate(instance: Any, name: str) -> list[Violation]:
    """Every violation of schema ``name``, the deepest first per branch, sorted by path."""
    if known_valid(instance, name):  # a built-in policy, validated when tested
        return []
    errors = _validator(name).iter_errors(instance)
    found = {Violation(_path(e), _message(e)) for e in _leaves(errors)}
    return sorted(found, key=lambda v: ([str(p) for p in v.path], v.message))


def _path(error: jsonschema.ValidationError) -> tuple[str | int, ...]:
    """Where the violation is; an unknown field is named by its own key."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
        extra = sorted((k for k in error.instance if k not in known), key=str)
        if len(extra) == 1:
            return (*path, extra[0])
    return path


def _leaves(errors: Any) -> Any:
    """Descend into anyOf/oneOf failures only when that names a clearer cause."""
    for error in errors:
        if error.context and error.validator not in ("anyOf", "oneOf"):
            yield from _leaves(error.context)
        else:
            yield error


def _message(error: jsonschema.ValidationError) -> str:
    """What is wrong, naming the value only by a short excerpt: never a file's content.

    jsonschema's own messages repeat the whole instance; a policy path that
    points at any file (``-p /etc/passwd``) would print that file.
    """
    schema: Any = error.schema
    instance: Any = error.instance
    value: Any = error.validator_value
    if error.validator == "required":  # names the property, never the instance
        return str(error.message)
    if error.validator == "additionalProperties":
        known = [str(k) for k in schema.get("properties", {})]
        extra = sorted(set(instance) - set(known), key=str)
        return f"unknown field {', '.join(brief(e) for e in extra)}" + _did_you_mean(extra, known)
    if error.validator == "enum":
        choices = [str(c) for c in schema["enum"]]
        return f"{brief(instance)} is not one of: {', '.join(choices)}" + _did_you_mean(
            [instance], choices)
    if error.validator == "not" and isinstance(schema, dict):
        inner = value if isinstance(value, dict) else {}
        return f"not allowed: {inner.get('description') or schema.get('description', 'forbidden')}"
    if error.validator in ("anyOf", "oneOf", "pattern") and "description" in schema:
        return f"{brief(instance)} is not {schema['description']}"
    return _GENERIC.get(str(error.validator), _other)(brief(instance), value)


def _did_you_mean(given: list[Any], known: list[str]) -> str:
    """The known name a typo is closest to (``enabledReplica``, ``takover``), if any is close."""
    hints = [match for g in given if isinstance(g, str) and len(g) <= _SHORT
             if (match := closest(g, known)) is not None]
    return f" (did you mean {', '.join(hints)}?)" if hints else ""


def _other(shown: str, value: Any) -> str:
    return f"{shown} is not valid here"


_GENERIC: dict[str, Callable[[str, Any], str]] = {
    "type": lambda shown, value: f"{shown} is not of type {_types(value)}",
    "const": lambda shown, value: f"{shown} must be {brief(value)}",
    "pattern": lambda shown, value: f"{shown} does not match {brief(value)}",
    "minLength": lambda shown, value: f"{shown} is shorter than {value} characters",
    "maxLength": lambda shown, value: f"{shown} is longer than {value} characters",
    "minimum": lambda shown, value: f"{shown} is less than the minimum of {value}",
    "maximum": lambda shown, value: f"{shown} is greater than the maximum of {value}",
    "minItems": lambda shown, value: f"{shown} has fewer than {value} items",
    "maxItems": lambda shown, value: f"{shown} has more than {value} items",
    "minProperties": lambda shown, value: f"{shown} has fewer than {value} fields",
    "uniqueItems": lambda shown, value: f"{shown} has repeated items",
}


def _types(value: Any) -> str:
    return " or ".join(repr(t) for t in value) if isinstance(value, list) else repr(value)


_SHORT = 40


def not_of_kind(data: Any, kind: str, what: str) -> Violation | None:
    """Why a document is no ``kind`` at all, by its shape alone, or None.

    Schema messages quote values; of a file that is not a policy (an explicit
    ``-p`` may name any file) they would print its content, ``'root:x:0:0:…'
    is not of type 'object'``. A document that says it is a ``kind`` is the
    user's own, and its short values may be quoted.
    """
    if not isinstance(data, dict):
        return Violation((), f"the document is {shape(data)}, not a {what} mapping ($)")
    if data.get("kind") != kind:
        return Violation(("kind",) if "kind" in data else (),
                         f"the document is a mapping without kind: {kind}, not a {what} "
                         "($.kind)")
    return None


_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")  # a DNS-1123 subdomain


def name_only(value: Any) -> str:
    """``value`` when it is a Kubernetes object name, else "": a name, never a value."""
    return value if isinstance(value, str) and _NAME.fullmatch(value) else ""


def shape(value: Any) -> str:
    """What a value is, and nothing of what it holds: for a document that is no policy at
    all, whose every word may be some other file's content (``-p /etc/passwd``)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else f"a {type(value).__name__} value"


def brief(value: Any) -> str:
    """A value as a message may show it: short scalars as written, anything else by its shape."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    shown = repr(value)
    if isinstance(value, str) and (len(shown) > _SHORT or "\\n" in shown):
        return f"a string of {len(value)} characters"
    return shown if len(shown) <= _SHORT else f"a {type(value).__name__} value"
