"""Data from a node tree as the Kubernetes decoders read it, with located errors.

PyYAML's safe constructor, with what sigs.k8s.io/yaml (go-yaml) does
differently: merge keys merge without rewriting the node tree, duplicate
keys are errors, timestamps stay strings, and values that make PyYAML
raise a bare Python exception (``!!int abc``, 5,000 digits) or that JSON
cannot hold (``!!binary``, ``!!set``) are located YAML errors.
"""

from __future__ import annotations

from typing import Any

import yaml

_MERGE = "tag:yaml.org,2002:merge"


class Loader(yaml.CSafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Keys in order; a merge key (``<<``) merges as go-yaml does for kubectl.

        The node tree is left as parsed (PyYAML's own merge rewrites it),
        because the splice needs the keys where they are written.
        """
        mapping: dict[Any, Any] = {}
        local: dict[Any, int] = {}
        merged = False
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                if merged:
                    raise error("duplicate merge key '<<'", key_node)
                merged = True
                mapping.update(self._merge(key_node, value_node, local))
                continue
            key = self._key(key_node, local)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def _key(self, key_node: yaml.Node, local: dict[Any, int]) -> Any:
        key = self.construct_object(key_node, deep=True)
        if isinstance(key, list | dict | set):
            raise error("a mapping key must be a scalar", key_node)
        if key in local:
            raise error(f"duplicate key {_short(key)} (first at line {local[key] + 1})",
                         key_node)
        local[key] = key_node.start_mark.line
        return key

    def _merge(self, key_node: yaml.Node, value_node: yaml.Node,
               local: dict[Any, int]) -> dict[Any, Any]:
        """The merged keys; earlier sources win (YAML merge spec, go-yaml alike).

        A key written before ``<<`` that the merge also sets is read
        differently by go-yaml (merge wins) and by the YAML spec (key wins),
        so it is refused rather than guessed.
        """
        sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        merged: dict[Any, Any] = {}
        for source in reversed(sources):
            if not isinstance(source, yaml.MappingNode):
                raise error("a merge key '<<' needs a mapping or a list of mappings", source)
            merged.update(self.construct_mapping(source, deep=True))
        clash = next((k for k in merged if k in local), None)
        if clash is not None:
            raise error(f"key {_short(clash)} is written before the merge key '<<' that also "
                         "sets it; YAML libraries disagree on which wins, write it after", key_node)
        return merged


def error(problem: str, node: yaml.Node) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _guarded(base: Any, kind: str) -> Any:
    """A scalar constructor whose failures become located YAML errors.

    PyYAML raises ValueError (``!!int abc``, over 4,300 digits), IndexError
    (``!!int ""``) or KeyError (``!!bool maybe``) instead of a YAMLError.
    """
    def construct(loader: Loader, node: yaml.Node) -> Any:
        try:
            value = base(loader, node)
        except (ValueError, OverflowError, IndexError, KeyError):
            raise error(_too_long(node) or f"not a valid {kind}", node) from None
        if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
            raise error("an integer of more than 4300 digits", node)  # hex, octal, binary
        return value

    return construct


_MAX_INT_BITS = 14_284  # 4300 decimal digits: Python's own limit for reading integers


def _too_long(node: yaml.Node) -> str:
    digits = sum(c.isdigit() for c in str(node.value))
    return f"an integer of {digits} digits (at most 4300 are read)" if digits > 4300 else ""


def _unsupported(loader: Loader, node: yaml.Node) -> Any:
    raise error(f"the tag {node.tag} has no meaning in a Kubernetes manifest", node)


_SAFE = yaml.constructor.SafeConstructor
for _tag, _base, _kind in (("int", _SAFE.construct_yaml_int, "integer"),
                           ("float", _SAFE.construct_yaml_float, "number"),
                           ("bool", _SAFE.construct_yaml_bool, "boolean")):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _guarded(_base, _kind))
for _tag in ("binary", "set", "omap", "pairs"):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _unsupported)
# Timestamps stay strings: Kubernetes objects never hold YAML timestamps.
Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", _SAFE.construct_yaml_str  # type: ignore[type-var]
)
