"""The one change promote makes to ``.tfpolicy.yaml``: the rung's name in ``policies``.

Through the YAML module's byte-preserving rewrite (comments, quoting, flow or
block style stay), and read back: the edited file must name the new policy
at the same place and nothing else may differ.
"""

from __future__ import annotations

from tfpolicy import yamlio
from tfpolicy.edits import Edit, Op
from tfpolicy.errors import TfpolicyError


def set_policy(text: str, file: str, index: int, name: str) -> str:
    """``text`` with ``policies[index]`` set to ``name``."""
    return _set(text, file, ("policies", index), name)


def set_rung(text: str, file: str, name: str) -> str:
    """``text`` with ``rung:`` set to ``name``."""
    return _set(text, file, ("rung",), name)


def _set(text: str, file: str, where: tuple[str | int, ...], name: str) -> str:
    docs = list(yamlio.split_documents(text))
    parsed = [yamlio.parse_document(raw.text, file=file, line=raw.line) for raw in docs]
    found = [i for i, p in enumerate(parsed) if p.node is not None]
    if len(found) != 1:
        raise TfpolicyError("a project config is one YAML document", file=file)
    at = found[0]
    edit = Edit(Op.SET, where, name)
    pieces = [raw.text for raw in docs]
    pieces[at] = yamlio.rewrite_document(docs[at], parsed[at], [edit], file=file)
    result = "".join(pieces)
    _check(text, result, file, where, name)
    return result


def _check(before: str, after: str, file: str, where: tuple[str | int, ...],
           name: str) -> None:
    old = next(d for d in yamlio.load_all(before, file=file) if d is not None)
    new = next(d for d in yamlio.load_all(after, file=file) if d is not None)
    expected = dict(old)
    if where[0] == "rung":
        expected["rung"] = name
    else:
        expected["policies"] = [name if i == where[1] else p
                                for i, p in enumerate(old["policies"])]
    if new != expected:
        raise TfpolicyError("the rewrite of the configuration does not read back as intended",
                            file=file)
