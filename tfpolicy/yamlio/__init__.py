"""The one YAML module: only code under ``tfpolicy/yamlio`` imports PyYAML or ruamel.yaml.

Round-trip contract: a document no edit touches keeps its bytes; an edited
document is rewritten by splicing into its text (comments, quoting, key
order and indentation kept), and only layouts the splice cannot handle go
through ruamel.yaml's round-trip emitter.
"""

from __future__ import annotations

from tfpolicy.edits import Edit
from tfpolicy.yamlio.emit import dump_documents, scalar
from tfpolicy.yamlio.load import (
    TEMPLATE_SYNTAX,
    Parsed,
    is_mapping_node,
    load_all,
    locate,
    parse_document,
)
from tfpolicy.yamlio.stream import (
    RawDoc,
    decode,
    decode_lines,
    iter_documents,
    newline_of,
    split_documents,
)

__all__ = [
    "TEMPLATE_SYNTAX",
    "Parsed",
    "RawDoc",
    "decode",
    "decode_lines",
    "dump_documents",
    "is_mapping_node",
    "iter_documents",
    "load_all",
    "locate",
    "parse_document",
    "rewrite_document",
    "scalar",
    "split_documents",
]


def rewrite_document(raw: RawDoc, parsed: Parsed, edits: list[Edit]) -> str:
    """The document's text with ``edits`` applied (unchanged text when there are none)."""
    if not edits or parsed.node is None:
        return raw.text
    from tfpolicy.yamlio.splice import splice

    newline = newline_of(raw.text)
    from tfpolicy.yamlio.jsondoc import rewrite_json

    as_json = rewrite_json(raw.text, edits, newline)
    if as_json is not None:
        return as_json
    spliced = splice(raw.text, parsed.node, edits, newline)
    if spliced is not None:
        return spliced
    from tfpolicy.yamlio.rt import rewrite

    return rewrite(raw.text, parsed.node, edits, newline)
