"""The split of a stream into documents, checked against the line-by-line rule it implements.

``iter_documents`` looks only at lines opening with ``%``, ``---`` or ``...``;
the oracle below reads every line. Whatever the stream and however it is
cut into pieces of whole lines (as ``decode_lines`` cuts a file), both give
the same documents at the same lines, and the documents join back into
the stream.
"""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy.errors import TfpolicyError
from tfpolicy.yamlio.stream import RawDoc, decode_lines, iter_documents

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
        if line.startswith("%"):
            pending.append(line)
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
    """The lines in pieces cut only where a line ends, as ``decode_lines`` cuts."""
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
    docs = list(iter_documents(pieces(lines, cuts)))
    assert docs == oracle(_LINE.findall("".join(lines)))  # only "\n" ends a line
    assert "".join(d.text for d in docs) == "".join(lines)


def test_a_file_is_read_in_pieces_of_whole_lines_with_the_bom_dropped() -> None:
    text = "\ufeffa: 1\n---\n" + "b: 2\n" * 300_000 + "c: 3"
    read = list(decode_lines(io.BytesIO(text.encode("utf-8")), "f.yaml"))
    assert len(read) > 1 and all(p.endswith("\n") for p in read[:-1])
    assert "".join(read) == text.removeprefix("\ufeff")


def test_a_bad_byte_is_named_with_its_line_even_pieces_later() -> None:
    data = b"a: 1\n" * 400_000 + b"b: \xff\n"
    try:
        list(decode_lines(io.BytesIO(data), "f.yaml"))
    except TfpolicyError as exc:
        assert str(exc).startswith("f.yaml:400001:") and "0xff" in str(exc)
    else:
        raise AssertionError("a byte that is not UTF-8 was read")
