"""The one YAML module: only code under ``tfpolicy/yamlio`` imports PyYAML or ruamel.yaml.

Round-trip contract: a document no edit touches keeps its bytes; an edited
document is rewritten by splicing into its text (comments, quoting, key
order and indentation kept), and only layouts the splice cannot handle go
through ruamel.yaml's round-trip emitter.
"""

from __future__ import annotations

from tfpolicy.edits import Edit
from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio.emit import dump_documents, scalar
from tfpolicy.yamlio.load import (
    TEMPLATE_SYNTAX,
    Parsed,
    is_mapping_node,
    load_all,
    locate,
    parse_document,
)
from tfpolicy.yamlio.screen import cleared, silence_process
from tfpolicy.yamlio.stream import (
    Piece,
    RawDoc,
    decode,
    iter_documents,
    read_pieces,
    split_documents,
)

__all__ = [
    "TEMPLATE_SYNTAX",
    "Parsed",
    "Piece",
    "RawDoc",
    "cleared",
    "confirmed",
    "decode",
    "dump_documents",
    "is_mapping_node",
    "iter_documents",
    "load_all",
    "load_rewriter",
    "locate",
    "parse_document",
    "read_pieces",
    "rewrite_document",
    "scalar",
    "silence_process",
    "split_documents",
]


def load_rewriter() -> None:
    """Import what ``rewrite_document`` needs for every document it changes.

    ``rewrite_document`` imports it when a first document changes, so that a run
    that changes nothing starts without it. A run about to fork its workers
    imports it first, once: each worker would import it on its own, into its
    own memory. (ruamel.yaml's round trip, for the rare layout the splice
    cannot handle, is left to the documents that need it.)"""
    import tfpolicy.yamlio.faithful
    import tfpolicy.yamlio.flow
    import tfpolicy.yamlio.jsondoc
    import tfpolicy.yamlio.jsonsplice
    import tfpolicy.yamlio.load
    import tfpolicy.yamlio.rnodes
    import tfpolicy.yamlio.splice  # noqa: F401


def confirmed(raw: RawDoc, parsed: Parsed, *, file: str) -> Parsed:
    """``parsed`` when it is libyaml's reading of ``raw`` or reads as libyaml's data; else
    libyaml's own reading (a located error when libyaml refuses the text).

    Edits planned on rapidyaml's reading are checked against it before they are written:
    the read back holds the new text against that reading plus the edits, so a misreading
    in what the edits remove would pass it. libyaml reads the input too, from its parser's
    events, and the document is planned again on libyaml's data when they differ."""
    from tfpolicy.yamlio.load import parse_with_libyaml
    from tfpolicy.yamlio.readback import reads_as
    from tfpolicy.yamlio.rnodes import Mapping

    if not isinstance(parsed.node, Mapping) or reads_as(raw.text, parsed.data):
        return parsed
    return parse_with_libyaml(raw.text, file=file, line=raw.line)


def rewrite_document(raw: RawDoc, parsed: Parsed, edits: list[Edit], *,
                     file: str | None = None) -> str:
    """The document's text with ``edits`` applied (unchanged text when there are none).

    Whatever writes it (JSON, the splice, the round trip), the text is parsed
    again and must read back as exactly the intended data; otherwise the
    next way is tried, and when none gives it the document is refused: text
    whose parse differs is never emitted (docs/yaml.md, docs/guarantees.md).
    """
    if not edits or parsed.node is None:
        return raw.text
    from tfpolicy.yamlio.faithful import first_faithful
    from tfpolicy.yamlio.load import parse_with_libyaml
    from tfpolicy.yamlio.rnodes import Mapping

    file = file or "<unknown>"
    text = None
    if isinstance(parsed.node, Mapping):  # read by rapidyaml: JSON or the splice, else libyaml
        text = first_faithful(raw, parsed, edits, file, quick=True)
        if text is None:
            parsed = parse_with_libyaml(raw.text, file=file, line=raw.line)
    if text is None:
        text = first_faithful(raw, parsed, edits, file)
    if text is None:
        line = raw.line + (parsed.node.start_mark.line if parsed.node else 0) + 1
        raise TfpolicyError(
            "cannot rewrite this document so that it reads back as intended (anchors, "
            "aliases, merge keys or a layout the rewriter does not handle); write the "
            "GPU workload in plain block style and run again", file=file, line=line,
        )
    return text
