"""Whether libyaml reads a text as given data: its node tree held against the data.

The read back of a rewritten document (verify.py) must be libyaml's. Building
the data with PyYAML's constructor and comparing costs twice the node tree's
composing; walking the tree beside the intended data costs a fraction, and
stops at the first difference. The walk accepts only what it is sure of:
mappings of plain string keys, sequences, and scalars tagged string,
timestamp (a string to Kubernetes, as to load.py's constructor), null,
boolean, or an integer or float written canonically. Anything else (a
merge key, another tag, an alias, a number in another form), and any
difference, is settled by the constructor's data, exactly as
``load.parse_with_libyaml`` builds it, so the walk can only make the answer
sooner, never other.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tfpolicy.rewrite.edits import same
from tfpolicy.yamlio import jsondoc
from tfpolicy.yamlio.construct import Loader

_T = "tag:yaml.org,2002:"
_STR, _STAMP, _NULL, _BOOL = _T + "str", _T + "timestamp", _T + "null", _T + "bool"
_INT, _FLOAT, _MAP, _SEQ = _T + "int", _T + "float", _T + "map", _T + "seq"
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CANONICAL_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
_BOOLS = yaml.constructor.SafeConstructor.bool_values
_FAILURES = (yaml.YAMLError, RecursionError)


def reads_as(text: str, intended: Any) -> bool:
    """Whether libyaml reads ``text`` (one document) as exactly ``intended``, types included;
    a text it refuses reads as nothing."""
    if "*" in text:  # aliases: load.py's reading checks their expansion first
        return _constructed(text, intended)
    loader = Loader(jsondoc.join_surrogates(text))
    try:
        node = loader.get_single_node()
        if node is None:
            return intended is None
        if _surely(node, intended):
            return True
        data = loader.construct_document(node)
    except _FAILURES:
        return False
    finally:
        loader.dispose()
    return same(data, intended)


def _constructed(text: str, intended: Any) -> bool:
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.yamlio.load import parse_with_libyaml

    try:
        return same(parse_with_libyaml(text, file="<read back>").data, intended)
    except TfpolicyError:
        return False


def _surely(root: yaml.Node, intended: Any) -> bool:
    """True when the tree certainly constructs to ``intended``; False is "not known"."""
    stack = [(root, intended)]
    while stack:
        node, value = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            if not _scalar(node, value):
                return False
        elif isinstance(node, yaml.MappingNode):
            if node.tag != _MAP or type(value) is not dict or len(node.value) != len(value):
                return False
            keys = set()
            for key, item in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag != _STR:
                    return False
                if key.value in keys or key.value not in value:
                    return False
                keys.add(key.value)
                stack.append((item, value[key.value]))
        elif isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ or type(value) is not list or len(node.value) != len(value):
                return False
            stack.extend(zip(node.value, value, strict=True))
        else:
            return False
    return True


def _scalar(node: yaml.ScalarNode, value: Any) -> bool:
    tag, text = node.tag, node.value
    if tag in (_STR, _STAMP):
        return type(value) is str and text == value
    if tag == _NULL:
        return value is None
    if tag == _BOOL:
        return type(value) is bool and _BOOLS.get(text.lower()) is value
    if tag == _INT:
        return type(value) is int and bool(_CANONICAL_INT.fullmatch(text)) and int(text) == value
    if tag == _FLOAT:
        return (type(value) is float and bool(_CANONICAL_FLOAT.fullmatch(text))
                and float(text) == value)
    return False
