"""Which documents of a stream need a parse, and the checks every parsed one passes.

Only documents that mention a GPU resource name (or tfpolicy's own record)
are parsed into data; the rest are kept as their original text. Every one
of those is still checked: cheaply for unrendered Helm templates, escapes
and aliases, and by rapidyaml for well-formed YAML, a mapping root and no
repeated key (``yamlio.cleared``); any doubt sends it through the full parse,
whose errors are the located exit-2 errors of any other document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.records import Record

# Where a document's content starts: a mapping key, or something else worth a real parse.
# A lone CR ends a line too, and "--- {flow: document}" has content on the marker's line.
FIRST_CONTENT = re.compile(
    r"(?:^|(?<=\r))(?!#|%|---[ \t]*(?:#[^\r\n]*)?(?:[\r\n]|\Z)|\.\.\.)[^\s#][^\r\n]*",
    re.MULTILINE,
)
_MAPPING_START = re.compile(
    r"^(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n]*?|\"[^\"\n]*\"|'[^'\n]*'):(?:\s|$)"
)
_ALIAS = re.compile(r"[\s\[{,]\*[^\s,\]}]")
MAX_DOCUMENT_CHARS = 16 << 20


def parsed(docs: Iterable[yamlio.RawDoc], markers: tuple[str, ...], file: str
            ) -> Iterator[tuple[yamlio.RawDoc, yamlio.Parsed | None]]:
    """Each document, parsed when a policy may read it (``None``: kept as its text)."""
    found = Markers.of(markers)
    for raw in docs:
        check_size(raw, file)
        if not found.found_in(raw.text) and passes(raw.text, FIRST_CONTENT.search(raw.text)):
            yield raw, None
            continue
        parsed = yamlio.parse_document(raw.text, file=file, line=raw.line)
        if parsed.node is not None:
            require_mapping(parsed, raw, file)
        yield raw, parsed


class Markers(Record):
    """Whether a text holds any marker, by plain substring searches alone.

    Each marker starts with its head (its part up to the first ``/`` after its
    first character, or itself): a text holds a marker where one of the heads
    occurs and a marker of that head starts. ``str.find`` and ``str.startswith``
    spare the regex engine, which tried the alternation at every character that
    may open a marker, and spare a start compiling that alternation of a hundred
    names (docs/speed.md).
    """

    heads: tuple[tuple[str, tuple[str, ...]], ...]  # each head, and its markers

    @staticmethod
    @lru_cache(maxsize=16)
    def of(markers: tuple[str, ...]) -> Markers:
        by_head: dict[str, set[str]] = {}
        for marker in markers:
            head = marker[:marker.index("/", 1) + 1] if "/" in marker[1:] else marker
            by_head.setdefault(head, set()).add(marker)
        return Markers(tuple((head, tuple(sorted(by_head[head]))) for head in sorted(by_head)))

    def found_in(self, text: str) -> bool:
        for head, markers in self.heads:
            at = text.find(head)
            while at >= 0:
                if text.startswith(markers, at):
                    return True
                at = text.find(head, at + 1)
        return False


def passes(text: str, first: re.Match[str] | None) -> bool:
    """A document no policy reads that is surely well-formed: kept as text, never constructed.

    ``first``: where its content starts (``FIRST_CONTENT``). One with no
    content at all (comments, a bare ``---``) is an empty document, which
    kubectl skips.
    """
    if first is None:
        return True
    return not _suspicious(text, first) and yamlio.cleared(text)


def _suspicious(text: str, first: re.Match[str]) -> bool:
    """Not obviously a mapping, template syntax, or a marker that may hide: worth a parse.

    Plain and single-quoted scalars spell their text literally; only a
    double-quoted escape (``\\x2F``, ``\\u002f``, ``\\/``, a backslash at a line
    end) can make a GPU resource name the raw-text marker test misses.
    """
    if "\\" in text and '"' in text:
        return True  # an escape in double quotes can spell a marker: "nvidia.com\x2Fgpu"
    if not _MAPPING_START.match(first.group(0)):
        return True
    if "&" in text and _ALIAS.search(text):
        return True  # aliases: checked for expansion bombs
    return "{{" in text and yamlio.TEMPLATE_SYNTAX.search(text) is not None


def require_mapping(parsed: yamlio.Parsed, raw: yamlio.RawDoc, file: str) -> None:
    if not yamlio.is_mapping_node(parsed.node):
        assert parsed.node is not None
        line = raw.line + parsed.node.start_mark.line + 1
        kind = type(parsed.data).__name__
        raise TfpolicyError(f"a manifest must be a mapping, not a {kind}", file=file, line=line)


def check_size(raw: yamlio.RawDoc, file: str) -> None:
    if len(raw.text) > MAX_DOCUMENT_CHARS:
        raise TfpolicyError(
            f"document is larger than {MAX_DOCUMENT_CHARS >> 20} MiB; a Kubernetes object "
            "cannot be (etcd keeps objects under 1.5 MiB)", file=file, line=raw.line + 1,
        )
