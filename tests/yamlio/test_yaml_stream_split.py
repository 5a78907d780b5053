"""The split of a stream into documents, checked against the line-by-line rule it implements.

``iter_documents`` looks only at lines opening with ``%``, ``---`` or ``...``;
the oracle below reads every line. Whatever the stream and however it is
cut into pieces of whole lines, both give the same documents at the same
lines, and the documents join back into the stream. ``read_pieces`` cuts
a byte stream into pieces of whole documents that worker processes split
on their own: together they give the oracle's documents too. A stream the
split refuses (what lies between its documents, boundaries.py) is one
libyaml refuses as a whole.
"""

from __future__ import annotations

import io
import re

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio.stream import RawDoc, iter_documents, read_pieces

LINES = st.sampled_from([
    "a: 1\n", "---\n", "--- \n", "---\t# c\n", "--- {a: 1}\n", "----\n", "...\n", "... # end\n",
    "%YAML 1.1\n", "%TAG ! x\n", "# comment\n", "\n", "  \n", "\t\n", "  - x\n", "b: |\n",
    "   text\n", "\r\n", "x\r", "a: 1\r\n", "...x\n", "---x\n",
])
_CONTENT = re.compile(r"[ \t]*[^ \t\r\n#]")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def oracle(lines: list[str]) -> list[RawDoc]:
    """The rule, one line at a time."""
    def marker(line: str, mark: str) -> bool:
        return line.startswith(mark) and (len(line) == 3 or line[3] in " \t\r\n")

    docs, chunk, pending, content, start = [], [], [], False, 0
    for line in lines:
        if line.startswith("%") or (pending and not line.startswith(("---", "..."))
                                    and not _CONTENT.match(line)):
            pending.append(line)  # a directive, and the comment lines waiting with it
            continue
        if marker(line, "---") and content:
            docs.append(RawDoc("".join(chunk), start))
            start, chunk, content = start + len(chunk), [], False
        chunk += pending
        content = content or bool(pending) or line.startswith("---") or bool(_CONTENT.match(line))
        pending = []
        chunk.append(line)
        if marker(line, "..."):
            docs.append(RawDoc("".join(chunk), start))
            start, chunk, content = start + len(chunk), [], False
    chunk += pending
    if chunk or not docs:
        docs.append(RawDoc("".join(chunk), start))
    return docs


def pieces(lines: list[str], cuts: list[int]) -> list[str]:
    """The lines in pieces cut only where a line ends."""
    out, at = [], 0
    at_ends = {c % (len(lines) + 1) for c in cuts}
    whole = sorted(c for c in at_ends if c > 0 and lines[c - 1].endswith("\n"))
    for cut in [*whole, len(lines)]:
        out.append("".join(lines[at:cut]))
        at = cut
    return [p for p in out if p]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(LINES, max_size=14), st.lists(st.integers(0, 20), max_size=4),
       st.sampled_from(["", "tail: x"]))
def test_the_split_follows_the_line_rule(lines: list[str], cuts: list[int], last: str) -> None:
    lines = [*lines, last] if last else lines
    try:
        docs = list(iter_documents(pieces(lines, cuts)))
    except TfpolicyError:
        assert libyaml_refuses("".join(lines))
        return
    assert docs == oracle(_LINE.findall("".join(lines)))  # only "\n" ends a line
    assert "".join(d.text for d in docs) == "".join(lines)


def libyaml_refuses(text: str) -> bool:
    try:
        for _ in yaml.parse(text, Loader=yaml.CSafeLoader):
            pass
    except yaml.YAMLError:
        return True
    return False


def documents_of(data: bytes, size: int) -> list[RawDoc]:
    return [d for p in read_pieces(io.BytesIO(data), size) for d in p.documents("f.yaml")]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(LINES, max_size=24), st.integers(1, 40), st.sampled_from(["", "tail: x"]),
       st.booleans())
def test_pieces_hold_the_streams_own_documents(lines: list[str], size: int, last: str,
                                                bom: bool) -> None:
    lines = [*lines, last] if last else lines
    text = "".join(lines)
    data = ("\ufeff" if bom else "").encode() + text.encode()
    try:
        docs = documents_of(data, size)
    except TfpolicyError:
        assert libyaml_refuses(text)
        return
    assert docs == oracle(_LINE.findall(text))


def test_a_long_stream_is_cut_into_many_pieces_with_the_bom_dropped() -> None:
    text = "\ufeff" + "---\n# c\nkind: A\nb: |\n  x\n" * 100_000
    pieces = list(read_pieces(io.BytesIO(text.encode("utf-8")), 1 << 16))
    assert len(pieces) > 20 and pieces[0].first and not pieces[1].first
    assert all(p.data.startswith(b"---\n") for p in pieces[1:])
    assert documents_of(text.encode(), 1 << 16) == oracle(_LINE.findall(text[1:]))


def test_no_cut_after_a_line_without_content() -> None:
    """Comments before a "---" belong to the document it opens: no cut there."""
    data = b"a: 1\n# about b\n---\nb: 2\n%YAML 1.2\n---\nc: 3\n\n---\nd: 4\n---\ne: 5\n"
    pieces = list(read_pieces(io.BytesIO(data), 1))
    assert [p.line for p in pieces] == [0, 10]  # only before "e", after a content line
    assert documents_of(data, 1) == oracle(_LINE.findall(data.decode()))


def test_a_bad_byte_is_named_with_its_line_even_pieces_later() -> None:
    data = b"a: 1\n---\n" * 200_000 + b"b: \xff\n"
    try:
        documents_of(data, 1 << 16)
    except TfpolicyError as exc:
        assert str(exc).startswith("f.yaml:400001:") and "0xff" in str(exc)
    else:
        raise AssertionError("a byte that is not UTF-8 was read")
