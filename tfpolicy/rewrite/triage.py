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


# Each anchor, and the markers it stands for: each with where the anchor starts in it.
Places = tuple[tuple[int, str], ...]
Anchors = tuple[tuple[str, Places], ...]


class Markers(Record):
    """Whether a text holds any marker, by plain substring searches alone.

    An ASCII text is searched in lower case, once per *anchor*: the markers in lower
    case that hold no other one (``gpu`` stands for ``GPU``, ``Gpu`` and
    ``gpu.intel.com/``, ``workflow`` for ``CronWorkflow``). Where an anchor occurs, the
    markers it stands for are tried on the text as it is written, so a marker is found
    in its own case only. The anchors that end in ``/`` (the vendors' domains, a score
    of them) are tried only where the text has a ``/``, all at once (``str.endswith``
    takes them together), instead of a search each. ``str.find`` spares the regex
    engine, which tried an alternation at every character that may open a marker, and
    a start compiling that alternation of a hundred names (docs/speed.md). Other text,
    or markers not all ASCII, are searched marker by marker.
    """

    markers: tuple[str, ...]  # those holding no other: a text holds a marker iff one of these
    anchors: Anchors  # searched one by one
    domains: Anchors  # the anchors ending in "/", tried at each "/" of the text
    ends: tuple[str, ...]  # the domains' anchors

    @staticmethod
    @lru_cache(maxsize=16)
    def of(markers: tuple[str, ...]) -> Markers:
        least = _least(set(markers))
        if not all(m.isascii() for m in least):
            return Markers(least, (), (), ())
        table = tuple((anchor, tuple((at, marker) for marker in least
                                     for at in _starts(marker.lower(), anchor)))
                      for anchor in _least({m.lower() for m in least}))
        domains = tuple(entry for entry in table if entry[0].endswith("/"))
        anchors = tuple(entry for entry in table if not entry[0].endswith("/"))
        return Markers(least, anchors, domains, tuple(anchor for anchor, _ in domains))

    def found_in(self, text: str) -> bool:
        if not text.isascii() or not (self.anchors or self.domains):
            return any(marker in text for marker in self.markers)
        lower = text.lower()  # ASCII: every character keeps its place
        if self.ends:
            at = lower.find("/")
            while at >= 0:
                if lower.endswith(self.ends, 0, at + 1) and self._domain(text, lower, at + 1):
                    return True
                at = lower.find("/", at + 1)
        for anchor, places in self.anchors:
            at = lower.find(anchor)
            while at >= 0:
                if _written(text, at, places):
                    return True
                at = lower.find(anchor, at + 1)
        return False

    def _domain(self, text: str, lower: str, end: int) -> bool:
        """Whether a marker of a domain anchor ending at ``end`` is written there."""
        return any(lower.endswith(anchor, 0, end) and _written(text, end - len(anchor), places)
                   for anchor, places in self.domains)


def _least(texts: set[str]) -> tuple[str, ...]:
    """The texts that hold no other one, sorted: whatever holds one of ``texts`` holds one
    of these."""
    return tuple(sorted(t for t in texts if not any(o != t and o in t for o in texts)))


def _starts(text: str, part: str) -> list[int]:
    """Every place ``part`` starts in ``text``."""
    return [at for at in range(len(text) - len(part) + 1) if text.startswith(part, at)]


def _written(text: str, at: int, places: Places) -> bool:
    """Whether one of ``places``' markers is written in ``text`` with its anchor at ``at``."""
    return any(start <= at and text.startswith(marker, at - start) for start, marker in places)


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
