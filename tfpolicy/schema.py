"""JSON Schema validation: the only module that imports jsonschema.

Schemas ship inside the package (``tfpolicy/schemas``) and are read with
importlib.resources, so an installed tfpolicy needs no checkout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema


@dataclass(frozen=True, slots=True)
class Violation:
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
    text = resources.files("tfpolicy").joinpath("schemas", f"{name}.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def validate(instance: Any, name: str) -> list[Violation]:
    """Every violation of schema ``name``, the deepest first per branch, sorted by path."""
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
    schema: Any = error.schema
    instance: Any = error.instance
    if error.validator == "additionalProperties":
        extra = sorted(set(instance) - set(schema.get("properties", {})), key=str)
        return f"unknown field {', '.join(repr(e) for e in extra)}"
    if error.validator == "enum":
        choices = ", ".join(str(c) for c in schema["enum"])
        return f"{instance!r} is not one of: {choices}"
    if error.validator == "not" and isinstance(schema, dict):
        inner = error.validator_value if isinstance(error.validator_value, dict) else {}
        return f"not allowed: {inner.get('description') or schema.get('description', 'forbidden')}"
    if error.validator in ("anyOf", "oneOf", "pattern") and "description" in schema:
        return f"{instance!r} is not {schema['description']}"
    return str(error.message)
