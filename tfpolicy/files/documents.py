"""Manifests read for a simulation, and errors put back at their line.

``admission``, ``plan``, ``verify`` and ``promote`` read whole manifests into
parsed documents; an error the simulation finds later names a document and a
path inside it, and is given its ``file:line:col`` here, where the text can
be read again. Stdin cannot be read twice: its text is kept (``kept``) as it
is read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tfpolicy import yamlio
from tfpolicy.admission.placeholders import PlaceholderError
from tfpolicy.edits import Path
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.listing import manifest_files
from tfpolicy.files.sources import STDIN, STDIN_NAME, read_text, shown_name
from tfpolicy.plan.simulate import TooManyPodsError
from tfpolicy.plan.twice import DefinedTwiceError
from tfpolicy.plan.units import Document


def read_documents(paths: tuple[str, ...], kept: dict[str, str] | None = None) -> list[Document]:
    """Every document of the manifests (files, folders, ``-``), parsed. ``kept`` receives
    stdin's text, which cannot be read twice, so that an error found later is located."""
    docs = []
    for file in manifest_files(paths):
        shown = shown_name(file)
        text = read_text(file)
        if kept is not None and file == STDIN:
            kept[shown] = text
        for index, data in enumerate(yamlio.load_all(text, file=shown)):
            docs.append(Document(shown, index, data))
    return docs


def read_mapping(path: str | None, what: str) -> dict[str, Any]:
    """The one YAML mapping a file such as ``--values`` holds (none: empty)."""
    if path is None:
        return {}
    docs = yamlio.load_all(read_text(path), file=path)
    if len(docs) > 1 or (docs and not isinstance(docs[0], Mapping)):
        raise TfpolicyError(f"{what} must be one YAML mapping", file=path)
    return dict(docs[0]) if docs else {}


@contextmanager
def locating(kept: Mapping[str, str]) -> Iterator[None]:
    """Errors a simulation raises about a document of the manifests, at their line: a
    placeholder for a GPU count, more pods than the plan simulates, an object defined
    twice (``kept``: stdin's text, as ``read_documents`` kept it)."""
    try:
        yield
    except TooManyPodsError as exc:
        doc = exc.document
        raise located(exc, doc.file, doc.index, exc.replicas_path, kept) from None
    except PlaceholderError as exc:
        raise located(exc, exc.file or "", exc.document, exc.path, kept) from None
    except DefinedTwiceError as exc:
        raise _defined_twice(exc, kept) from None


def located(error: TfpolicyError, file: str, index: int, path: Path,
            kept: Mapping[str, str]) -> TfpolicyError:
    """``error`` at the line and column of ``path`` in the ``index``-th document of
    ``file`` (counted as ``read_documents`` counts them); the file is read again, stdin's
    text comes from ``kept``, and without it the error stays at its file."""
    text = kept.get(file)
    if text is None and file == STDIN_NAME:
        return error
    found = [(raw.line, node) for raw in yamlio.split_documents(text or read_text(file))
             for node in [yamlio.parse_document(raw.text, file=file, line=raw.line).node]
             if node is not None]
    if index < len(found):
        first, node = found[index]
        line, column = yamlio.locate(node, path)  # within the document's own text
        error.file, error.line, error.column = file, first + line + 1, column + 1
    return error


def _defined_twice(error: DefinedTwiceError, kept: Mapping[str, str]) -> TfpolicyError:
    """The error at its second place, naming the first by file and line."""
    where = error.second
    shown = error.shown(lambda p: _line_of(p.file, p.index, p.path, kept))
    return located(shown, where.file, where.index, where.path, kept)


def _line_of(file: str, index: int, path: Path, kept: Mapping[str, str]) -> str:
    """``file:line`` of ``path`` in the ``index``-th document of ``file`` (as ``located``)."""
    return str(located(TfpolicyError(""), file, index, path, kept)).rstrip(": ")
