"""The types of the fields a reader takes from a cluster's objects, as tables: a path
(``"*"``: every item of a list, or every value of a mapping) and the kind of value it
must hold. verify's snapshot kinds (:mod:`tfpolicy.verify.snapshot_shape`) and the GitOps
controllers' (:mod:`tfpolicy.gitops.kinds`) are both checked by this walk; each says a
mismatch in its own words.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

MAP, LIST, TEXT, TEXTS, SCALAR = ("a mapping", "a list of mappings", "a string",
                                  "a list of strings", "a scalar")
Path = tuple[str, ...]


def under(prefix: Path, table: Mapping[Path, str]) -> dict[Path, str]:
    """``table``'s paths below ``prefix``."""
    return {prefix + path: kind for path, kind in table.items()}


def found(value: Any, path: Path, where: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Each value at ``path`` in ``value``, with where it stands; a part missing or of
    another type yields nothing (a table checks the part itself first)."""
    if not path:
        yield where, value
        return
    head, rest = path[0], path[1:]
    if head == "*" and isinstance(value, Mapping):
        for key, item in value.items():
            yield from found(item, rest, (*where, str(key)))
    elif head == "*" and isinstance(value, list):
        for index, item in enumerate(value):
            yield from found(item, rest, (*where, str(index)))
    elif isinstance(value, Mapping) and head in value:
        yield from found(value[head], rest, (*where, head))


def fits(value: Any, kind: str) -> bool:
    """``value`` is of ``kind`` (a scalar: anything but a mapping or a list)."""
    if kind == MAP:
        return isinstance(value, Mapping)
    if kind in (LIST, TEXTS):
        inner = Mapping if kind == LIST else str
        return isinstance(value, list) and all(isinstance(v, inner) for v in value)
    if kind == TEXT:
        return isinstance(value, str)
    return not isinstance(value, (Mapping, list))
