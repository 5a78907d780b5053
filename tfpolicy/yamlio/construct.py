"""Data from a node tree as kubectl reads it, with located errors.

libyaml (PyYAML's C parser) builds the node tree; the data is what
sigs.k8s.io/yaml makes of it (goyaml.py): plain scalars typed as go-yaml v2
types them, keys spelled as their JSON strings (so ``1`` and ``true`` are two
keys, and ``1`` and ``"1"`` one), merge keys merged without rewriting the
node tree, timestamps left strings, ``!!binary`` decoded to its text.
Where kubectl refuses a document (a null key, a tag it cannot decode,
``!!binary`` that is not base64), or would have to guess (a repeated key, a
``!!binary`` that is not UTF-8 text), the error is a located YAML error; so
are ``!!set``, ``!!omap`` and ``!!pairs``. ``.inf`` and ``.nan`` stay floats,
as before: kubectl refuses them (JSON has neither), and what reads a number
(a quantity, a count) refuses them there, while a ResourceList holding one
still comes back whole to its host.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import yaml

from tfpolicy.yamlio import goyaml

_MERGE = goyaml.MERGE
_STR = goyaml.STR
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_TIMESTAMP = next(pattern for tag, pattern in yaml.resolver.Resolver.yaml_implicit_resolvers["2"]
                  if tag == "tag:yaml.org,2002:timestamp")


class Loader(yaml.CSafeLoader):
    def resolve(self, kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
        """A node's tag: a plain scalar's as kubectl types it; any other scalar a string."""
        if kind is yaml.ScalarNode:
            return goyaml.plain_tag(value) if implicit[0] else _STR
        return _MAP if kind is yaml.MappingNode else _SEQ

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
        """The key as kubectl spells it in JSON; one spelled as an earlier one repeats it."""
        value = self.construct_object(key_node, deep=True)
        key = value if type(value) is str else self._key_of(value, key_node)
        identity = self._identity(key)
        if identity in local:
            raise RepeatedKey(f"duplicate key {_short(key)}", key_node.start_mark,
                              local[identity])
        local[identity] = key_node.start_mark.line
        return key

    def _key_of(self, value: Any, node: yaml.Node) -> Any:
        return _key_text(value, node)

    @staticmethod
    def _identity(key: Any) -> Any:
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
        clash = next((k for k in merged if self._identity(k) in local), None)
        if clash is not None:
            raise error(f"key {_short(clash)} is written before the merge key '<<' that also "
                        "sets it; YAML libraries disagree on which wins, write it after", key_node)
        return merged


_OWN_GROUP = "tfpolicy.dev/"  # tfpolicy's own kinds: MigrationPolicy, Inventory, …


def is_kubernetes_node(node: yaml.Node) -> bool:
    """A mapping with an ``apiVersion`` and a ``kind``, outside tfpolicy's own group: read as
    kubectl reads it (:class:`Loader`); anything else is one of tfpolicy's own files (a
    policy, an inventory, ``.tfpolicy.yaml``), read as it always was (:class:`Yaml11Loader`)."""
    if not isinstance(node, yaml.MappingNode):
        return False
    found = {k.value: v for k, v in node.value
             if isinstance(k, yaml.ScalarNode) and k.value in ("apiVersion", "kind")}
    version = found.get("apiVersion")
    own = isinstance(version, yaml.ScalarNode) and str(version.value).startswith(_OWN_GROUP)
    return "kind" in found and version is not None and not own


def is_kubernetes_object(data: Any) -> bool:
    """:func:`is_kubernetes_node` for data."""
    if not isinstance(data, dict):
        return False
    version = data.get("apiVersion")
    own = isinstance(version, str) and version.startswith(_OWN_GROUP)
    return "kind" in data and "apiVersion" in data and not own


def _key_text(value: Any, node: yaml.Node) -> str:
    if isinstance(value, list | dict | set):
        raise error("a mapping key must be a scalar", node)
    text = goyaml.key_text(value)
    if text is None:
        what = "a null key" if value is None else f"the key {_short(value)}"
        raise error(f"{what} has no JSON spelling; kubectl refuses it", node)
    return text


class RepeatedKey(yaml.constructor.ConstructorError):
    """A key a mapping holds twice. ``first_line``: the 0-based line of its first writing
    in the text parsed, which a located message counts among the file's lines, as it
    does the repeat's own mark (located.py)."""

    def __init__(self, problem: str, mark: yaml.Mark, first_line: int) -> None:
        super().__init__(None, None, problem, mark)
        self.first_line = first_line


def error(problem: str, node: yaml.Node) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _typed(tag: str) -> Any:
    """The constructor of ``tag``: the scalar's text typed as go-yaml does, which must give
    ``tag`` (an integer does for ``!!float``); kubectl refuses any other."""
    def construct(loader: Loader, node: yaml.Node) -> Any:
        found, value = goyaml.resolve(str(node.value))
        if found == goyaml.INT and tag == goyaml.FLOAT:
            found, value = tag, float(value)
        if found != tag:
            short = tag.rsplit(":", 1)[-1]
            raise error(f"{_short(node.value)} is not a !!{short} as kubectl reads it", node)
        return value

    return construct


def _merge_value(loader: Loader, node: yaml.Node) -> str:
    """``<<`` anywhere but as a key is only text to go-yaml (``!!merge x`` is ``x``)."""
    return str(node.value)


def _timestamp(loader: Loader, node: yaml.Node) -> str:
    """A timestamp stays the text kubectl reads (go-yaml v2 keeps it a string)."""
    if not _TIMESTAMP.match(str(node.value)):
        raise error(f"{_short(node.value)} is not a !!timestamp", node)
    return str(node.value)


def _binary(loader: Loader, node: yaml.Node) -> str:
    """``!!binary`` as kubectl reads it: base64 (line breaks ignored) decoded to text."""
    try:
        data = base64.b64decode(str(node.value).replace("\r", "").replace("\n", ""),
                                validate=True)
    except (binascii.Error, ValueError):
        raise error("!!binary value is not base64; kubectl refuses it", node) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error("!!binary value is not UTF-8 text; kubectl would replace its bytes, write "
                    "it as a base64 string without the tag", node) from None


def _too_large(loader: Loader, node: yaml.Node) -> Any:
    digits = sum(c.isdigit() for c in str(node.value))
    raise error(f"an integer of {digits} digits (at most {goyaml.MAX_DIGITS} are read)", node)


def _unsupported(loader: Loader, node: yaml.Node) -> Any:
    raise error(f"the tag {node.tag} has no meaning in a Kubernetes manifest", node)


for _tag in (goyaml.INT, goyaml.FLOAT, goyaml.BOOL, goyaml.NULL):
    Loader.add_constructor(_tag, _typed(_tag))
for _tag, _constructor in ((_MERGE, _merge_value), ("tag:yaml.org,2002:timestamp", _timestamp),
                           ("tag:yaml.org,2002:binary", _binary), (goyaml.TOO_LARGE, _too_large)):
    Loader.add_constructor(_tag, _constructor)
for _name in ("set", "omap", "pairs"):
    Loader.add_constructor(f"tag:yaml.org,2002:{_name}", _unsupported)


class Yaml11Loader(Loader):
    """tfpolicy's own files (policies, inventories, ``.tfpolicy.yaml``) as they were always
    read: YAML 1.1's table as PyYAML has it (``yes`` is true, ``n`` a node group's name),
    keys as written; ``1`` and ``true`` are two keys, ``=`` and ``<<`` as values strings.
    Only tfpolicy reads these files, and a name ``n`` read as false would only be refused
    by their schema. Kubernetes objects are read with :class:`Loader` (load.py says which)."""

    def resolve(self, kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
        tag = yaml.resolver.Resolver.resolve(self, kind, value, implicit)  # type: ignore[no-untyped-call]
        return str(tag)

    def _key_of(self, value: Any, node: yaml.Node) -> Any:
        if isinstance(value, list | dict | set):
            raise error("a mapping key must be a scalar", node)
        return value

    @staticmethod
    def _identity(key: Any) -> Any:
        return type(key), key  # 1 == True in Python; two keys in YAML


def _guarded(base: Any, kind: str) -> Any:
    """A YAML 1.1 scalar constructor whose failures become located YAML errors.

    PyYAML raises ValueError (``!!int abc``, over 4,300 digits), IndexError
    (``!!int ""``) or KeyError (``!!bool maybe``) instead of a YAMLError.
    """
    def construct(loader: Loader, node: yaml.Node) -> Any:
        try:
            value = base(loader, node)
        except (ValueError, OverflowError, IndexError, KeyError):
            digits = sum(c.isdigit() for c in str(node.value))
            raise error(f"an integer of {digits} digits (at most 4300 are read)" if digits > 4300
                        else f"not a valid {kind}", node) from None
        if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
            raise error("an integer of more than 4300 digits", node)  # hex, octal, binary
        return value

    return construct


_MAX_INT_BITS = 14_284  # 4300 decimal digits: Python's own limit for reading integers
_SAFE = yaml.constructor.SafeConstructor
for _name, _base, _kind in (("int", _SAFE.construct_yaml_int, "integer"),
                            ("float", _SAFE.construct_yaml_float, "number"),
                            ("bool", _SAFE.construct_yaml_bool, "boolean"),
                            ("null", _SAFE.construct_yaml_null, "null")):
    Yaml11Loader.add_constructor(f"tag:yaml.org,2002:{_name}", _guarded(_base, _kind))
Yaml11Loader.add_constructor("tag:yaml.org,2002:value", _merge_value)  # "=" is text
Yaml11Loader.add_constructor("tag:yaml.org,2002:binary", _unsupported)
Yaml11Loader.add_constructor("tag:yaml.org,2002:timestamp",
                             _SAFE.construct_yaml_str)  # type: ignore[type-var]
