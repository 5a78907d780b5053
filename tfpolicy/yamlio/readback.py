"""Whether libyaml reads a text as given data: its parser's events held against the data.

The read back of a rewritten document (verify.py) must be libyaml's. Building
the data with PyYAML's constructor and comparing costs twice the node tree's
composing, and composing alone runs PyYAML's Python resolver on every
scalar and builds a node for it. Walking libyaml's events (its C parser,
no composer) beside the intended data costs a third of that, and resolves
only the plain scalars whose first character some implicit resolver
watches, with the loader's own resolver table. The walk accepts only what
it is sure of: mappings of plain string keys, sequences, and untagged
scalars that resolve to string, timestamp (a string to Kubernetes, as to
load.py's constructor), null, boolean, or an integer or float written
canonically. Anything else (a tag, an anchor or alias, a merge key, a
number in another form, a second document), and any difference, is settled
by the constructor's data, exactly as ``load.parse_with_libyaml`` builds
it, so the walk can only make the answer sooner, never other. Every event
is read to the stream's end, so an error anywhere in the text is libyaml's
refusal, as in the composer.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

import yaml
from yaml._yaml import CParser

from tfpolicy.edits import same
from tfpolicy.yamlio import goyaml, jsondoc
from tfpolicy.yamlio.construct import Loader, is_kubernetes_object

_T = "tag:yaml.org,2002:"
_STR, _STAMP, _NULL, _BOOL = _T + "str", _T + "timestamp", _T + "null", _T + "bool"
_INT, _FLOAT = _T + "int", _T + "float"
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CANONICAL_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
_FAILURES = (yaml.YAMLError, RecursionError)
_SCALAR, _MAP_START, _SEQ_START = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
_MAP_END, _SEQ_END = yaml.MappingEndEvent, yaml.SequenceEndEvent
_DOC_START, _DOC_END = yaml.DocumentStartEvent, yaml.DocumentEndEvent
_STREAM_START, _STREAM_END = yaml.StreamStartEvent, yaml.StreamEndEvent


class _Unsure(Exception):
    """The walk cannot tell: the constructor's data settles it."""


def reads_as(text: str, intended: Any) -> bool:
    """Whether libyaml reads ``text`` (one document) as exactly ``intended``, types included;
    a text it refuses reads as nothing. The walk types scalars as kubectl does, so it
    answers for Kubernetes objects only (tfpolicy's own files are read as YAML 1.1)."""
    if not is_kubernetes_object(intended):
        return _expanded(text, intended)
    joined = jsondoc.join_surrogates(text)
    parser = CParser(joined)
    try:
        return _walk_stream(parser, intended)
    except _FAILURES:
        return False
    except _Unsure:
        pass
    finally:
        parser.dispose()
    if "*" in text:  # aliases: load.py's reading checks their expansion first
        return _expanded(text, intended)
    return _constructed(joined, intended)


def _constructed(text: str, intended: Any) -> bool:
    loader = Loader(text)
    try:
        data = loader.get_single_data()
    except _FAILURES:
        return False
    finally:
        loader.dispose()
    return _same(data, intended)


def _expanded(text: str, intended: Any) -> bool:
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.yamlio.load import parse_with_libyaml

    try:
        return _same(parse_with_libyaml(text, file="<read back>").data, intended)
    except TfpolicyError:
        return False


def _same(data: Any, intended: Any) -> bool:
    """``same``, with data nested near libyaml's limit (1,000 levels) deeper than Python's
    recursion allows read as a difference: the document is refused, never a traceback."""
    try:
        return same(data, intended)
    except RecursionError:
        return False


def _walk_stream(parser: CParser, intended: Any) -> bool:
    """True when the stream is one document that certainly constructs to ``intended``;
    ``_Unsure`` otherwise (a difference included: the constructor's data says how)."""
    get = parser.get_event
    if type(get()) is not _STREAM_START or type(get()) is not _DOC_START:
        raise _Unsure
    try:
        _node(get, get(), intended)
    except RecursionError:
        raise _Unsure from None
    if type(get()) is not _DOC_END or type(get()) is not _STREAM_END:
        raise _Unsure  # a second document: the composer's error, or not
    return True


def _node(get: Any, event: Any, value: Any) -> None:
    """Read one node's events from ``event`` on; ``_Unsure`` unless they match ``value``.

    The common scalar, a string equal to ``value`` that is quoted, a block, or plain
    and opening with a character no implicit resolver watches, is settled before this
    is called, in the loops of ``_mapping`` and ``_sequence`` (written out in each: a
    call per scalar was most of the walk's own time).
    """
    kind = type(event)
    if kind is _SCALAR:
        if event.tag is not None or event.anchor is not None or not _scalar(event, value):
            raise _Unsure
    elif kind is _MAP_START:
        if event.tag is not None or event.anchor is not None or type(value) is not dict:
            raise _Unsure
        _mapping(get, value)
    elif kind is _SEQ_START:
        if event.tag is not None or event.anchor is not None or type(value) is not list:
            raise _Unsure
        _sequence(get, value)
    else:
        raise _Unsure  # an alias


def _mapping(get: Any, value: dict[str, Any]) -> None:
    """The events of a mapping's entries up to its end, against ``value``."""
    seen: set[str] = set()
    add, watched = seen.add, _WATCHED
    while True:
        key = get()
        if type(key) is not _SCALAR:
            if type(key) is _MAP_END and len(seen) == len(value):
                return
            raise _Unsure
        name = key.value
        if key.tag is not None or key.anchor is not None or name in seen or name not in value \
                or (key.implicit[0] and name[:1] in watched and _plain_tag(name) != _STR):
            raise _Unsure
        add(name)
        event, item = get(), value[name]
        if type(event) is not _SCALAR or event.tag is not None or event.anchor is not None \
                or type(item) is not str or event.value != item \
                or (event.implicit[0] and item[:1] in watched):
            _node(get, event, item)  # not the common string: read in full


def _sequence(get: Any, value: list[Any]) -> None:
    """The events of a sequence's items up to its end, against ``value``."""
    watched = _WATCHED
    for item in value:
        event = get()
        if type(event) is not _SCALAR or event.tag is not None or event.anchor is not None \
                or type(item) is not str or event.value != item \
                or (event.implicit[0] and item[:1] in watched):
            _node(get, event, item)
    if type(get()) is not _SEQ_END:
        raise _Unsure


def _tag(event: Any) -> str:
    """The tag an untagged scalar has as kubectl types it (the loader's own resolver)."""
    if not event.implicit[0]:
        return _STR  # quoted or block: a string
    return _plain_tag(event.value)


def _plain_tag(text: str) -> str:
    """The tag of a plain scalar, remembered (the same keys and values recur in every
    manifest)."""
    tag = _PLAIN_TAGS.get(text)
    if tag is None:
        tag = goyaml.plain_tag(text)
        if len(text) <= _REMEMBERED_CHARS:
            if len(_PLAIN_TAGS) >= _PLAIN_TAGS_MAX:
                _PLAIN_TAGS.clear()
            _PLAIN_TAGS[text] = tag
    return tag


_PLAIN_TAGS: dict[str, str] = {}
_PLAIN_TAGS_MAX = 1 << 14  # texts, each of at most _REMEMBERED_CHARS: a bound on the memory
_REMEMBERED_CHARS = 64  # a stream of distinct ones may take


def _scalar(event: Any, value: Any) -> bool:
    tag, text = _tag(event), event.value
    if tag in (_STR, _STAMP):
        return type(value) is str and text == value
    if tag == _NULL:
        return value is None
    if tag == _BOOL:
        return type(value) is bool and goyaml.resolve(text)[1] is value
    if tag == _INT:
        return type(value) is int and bool(_CANONICAL_INT.fullmatch(text)) and int(text) == value
    if tag == _FLOAT:
        return (type(value) is float and bool(_CANONICAL_FLOAT.fullmatch(text))
                and float(text) == value)
    return False  # a merge key, "=": the constructor says what it is


# The first characters of a plain scalar that may not be a string ("" for the empty
# scalar): a plain scalar opening with another one is a string.
_WATCHED: Container[str] = goyaml.WATCHED | {""}
