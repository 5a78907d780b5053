"""A fast check that a document the engine need not read is well-formed YAML.

Documents that mention no GPU resource are passed on as their original
text, but a stream kubectl would reject must still be rejected (malformed
input is exit 2: docs/exit-codes.md). rapidyaml (``ryml``) parses a document into a
flat tree without building Python objects, about twenty times faster than
libyaml's constructor on these documents, so every document can be checked.

rapidyaml only ever *clears* a document, and only one inside the allow-list
(allow.py: the characters, line lengths, escapes, layouts and scalars
shown read alike by both): whatever is outside it, or that rapidyaml refuses
or cannot settle (a parse error, a root that is not a mapping, keys that may
repeat, JSON it cannot emit), goes to the full libyaml parse, which stays the
one authority for what is an error and for its message and location. So the
messages are the ones libyaml-based parsing always gave, and a document
rapidyaml is stricter about than libyaml is still accepted.

Three gaps of the ``ryml`` wrapper are worked around here: its default error
handler prints to the process's stderr (file descriptor 2) before raising
(so does its JSON emitter, on a tree nested too deeply), so descriptor 2 is
pointed at ``/dev/null`` for the length of each call; and
it has no duplicate-key check, so the tree is emitted as JSON and read back
with a hook that sees every mapping's keys (in C, not a Python tree walk), and
sends a key YAML 1.1 may type otherwise (``yes`` beside ``true``) to libyaml;
and its ``emit_json_malloc`` leaks the buffer it returns, so the JSON is
written into a buffer allocated here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from tfpolicy.yamlio.allow import admitted
from tfpolicy.yamlio.rapid import ryml
from tfpolicy.yamlio.scalars import typed_key

_quiet: list[int] = []  # [fd of /dev/null], opened on first use
_silenced: list[bool] = []  # [True] once descriptor 2 is /dev/null for good
_CONTAINER_STYLE = int(ryml.CONTAINER_STYLE)


def cleared(text: str) -> bool:
    """True when ``text`` is surely one well-formed mapping (or empty) with no repeated key.

    False means "parse it fully": not necessarily an error.
    """
    if not admitted(text):
        return False
    try:
        tree = quietly(ryml.parse_in_arena, text.encode("utf-8"))
    except Exception:  # any refusal sends the document to libyaml
        return False
    root = document_root(tree)
    if root is None:
        return True  # only comments, or nothing
    if root < 0 or not tree.is_map(root):
        return False
    return _keys_unique(tree, root, len(text))


def document_root(tree: Any) -> int | None:
    """The document's node: ``None`` when empty, -1 when the shape is not one document."""
    root = tree.root_id()
    if tree.is_stream(root):  # "---" opened the document: the stream holds it
        if tree.num_children(root) != 1:
            return -1
        root = tree.first_child(root)
    if tree.is_map(root) or tree.is_seq(root) or tree.is_val(root) or tree.has_val(root):
        return int(root)
    return None if tree.num_children(root) == 0 else -1


def _keys_unique(tree: Any, root: int, size_hint: int) -> bool:
    try:
        _UNIQUE_KEYS.decode(json_text(json_of(tree, root, size_hint)))
    except Exception:  # a repeated key, or JSON it could not write
        return False
    return True


def json_text(written: bytearray) -> str:
    """rapidyaml's JSON as text, decoded as ``json.loads`` decodes UTF-8 bytes."""
    return written.decode("utf-8", "surrogatepass")


def json_of(tree: Any, node: int, size_hint: int) -> bytearray:
    """The tree's JSON from ``node`` (a container) down, on one line, in a buffer of ours:
    ``emit_json_malloc``'s is never freed (~30 MB per 10,000 documents of the bench corpus).

    The node is styled flow for the emitter, and its own style put back after:
    then every container below is written flow too, with ``": "`` after a key
    and ``","`` between items, as ``json.dumps`` writes with those separators,
    and no line break or indentation at all (a line break inside a string is
    written ``\\n``). Written at once into a buffer sized from ``size_hint``
    (the YAML's length: its JSON on one line is seldom longer); only when it
    does not fit is it written again at the size rapidyaml says. Measuring
    first cost a second pass over the tree for every document.
    """
    style = int(tree.type(node)) & _CONTAINER_STYLE
    tree.set_container_style(node, ryml.FLOW_SL)
    try:
        buffer = bytearray(2 * size_hint + 512)
        failed, size = quietly(ryml.emit_json_to_substr, tree, node, buffer)
        if failed:
            buffer = bytearray(size)
            failed, size = quietly(ryml.emit_json_to_substr, tree, node, buffer)
            if failed:
                raise ValueError("rapidyaml wrote no JSON for this tree")
    finally:
        tree.set_container_style(node, style)
    del buffer[size:]
    return buffer


def _unique_pairs(pairs: list[tuple[str, Any]]) -> None:
    """A mapping's keys, all distinct, and each a string to libyaml too: keys rapidyaml
    reads apart may be one key to libyaml (``yes`` and ``true``), so a key YAML 1.1 may
    type otherwise, were it written plain, sends the document to libyaml (quoted or not:
    the JSON does not tell). Keys seen to be strings are remembered, as the read back
    remembers plain scalars' tags (the same keys recur in every manifest)."""
    keys = dict(pairs)  # dict() counts the keys in C
    if len(keys) != len(pairs):
        raise ValueError("repeated key")
    if not _STRING_KEYS.issuperset(keys):
        _learn(keys.keys() - _STRING_KEYS)


def _learn(keys: set[str]) -> None:
    for key in keys:
        if typed_key(key):
            raise ValueError("a key YAML 1.1 may type otherwise")
        if len(_STRING_KEYS) >= _STRING_KEYS_MAX:
            _STRING_KEYS.clear()
        if len(key) <= _REMEMBERED_CHARS:
            _STRING_KEYS.add(key)


_STRING_KEYS: set[str] = set()
_STRING_KEYS_MAX = 1 << 14  # keys, each of at most _REMEMBERED_CHARS: a bound on the memory
_REMEMBERED_CHARS = 64  # a stream of distinct ones may take


# One decoder for every document: ``json.loads`` with a hook builds a new one per call.
_UNIQUE_KEYS = json.JSONDecoder(object_pairs_hook=_unique_pairs)


def quietly(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``: rapidyaml's error handler writes to descriptor 2 itself, so it is
    pointed at ``/dev/null`` for the call (a plain function: a context manager's generator
    cost more than the two ``dup2`` on every document), unless it is for good
    (``silence_process``)."""
    if _silenced:
        return call(*args)
    if not _quiet:
        _quiet.append(os.open(os.devnull, os.O_WRONLY))
    # No Python code writes while it is pointed away, so nothing buffered is lost.
    saved = os.dup(2)
    os.dup2(_quiet[0], 2)
    try:
        return call(*args)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def silence_process() -> None:
    """Point descriptor 2 at ``/dev/null`` for the rest of the process: for a worker
    process, which hands everything it has to say back to its parent, so that rapidyaml
    need not be silenced call by call (four system calls per document)."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)
    os.close(quiet)
    _silenced.append(True)
