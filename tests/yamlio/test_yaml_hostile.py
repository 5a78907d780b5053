"""Hostile YAML (issue 24 §1): whatever the fast path takes, libyaml takes and reads alike.

Documents are drawn from GPU Deployments and small mappings with hostile
pieces put anywhere, and right after a key's colon, at a line's start or end
and inside a comment: the line breaks libyaml knows besides ``\\n`` (NEL,
LS, PS), tabs, a byte order mark, CR and CRLF, NBSP and other separators,
format and private-use characters, controls, long keys around libyaml's
1,024 characters, anchor-, alias- and tag-like tokens (``& x``), empty and
explicit keys, merge keys, brackets, escapes (surrogates, ``\\N``, ``\\x41``,
a folded line), block scalar headers, markers; and deep nesting.

- The readers: for every document ``fast.read`` reads, libyaml (load.py's
  reading, PyYAML's C loader) reads it too and gives the same data, types
  included; every document ``screen.cleared`` clears, libyaml reads as one
  mapping (or nothing) without a repeated key.
- The whole CLI (``apply`` and ``fix`` with ``-p takeover`` and
  ``-p rightsize-example``): the output, read by libyaml, is libyaml's
  reading of the input plus the edits planned on *that* reading; a stream
  libyaml refuses is exit 2 with one ``file:line:col`` line and nothing
  written; never exit 3.

Derandomized, so CI runs the same examples every time; set
``TFPOLICY_HOSTILE_EXAMPLES`` to run more (the CLI property runs a tenth as
many, each example being a whole run of the command).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import policy_set
from tfpolicy.cli import main
from tfpolicy.edits import apply_edits, same
from tfpolicy.errors import TfpolicyError
from tfpolicy.rewrite.engine import DocContext, plan_document
from tfpolicy.yamlio import fast, screen, split_documents
from tfpolicy.yamlio.load import Parsed, is_mapping_node, parse_with_libyaml
from tfpolicy.yamlio.restore import Capturer

EXAMPLES = int(os.environ.get("TFPOLICY_HOSTILE_EXAMPLES", "3000"))

POLICIES = ["takeover", "rightsize-example"]
PLANNED = {name: policy_set(name) for name in POLICIES}

GPU = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
  labels:
    app: infer
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: infer
      annotations:
        note: "a b"  # why
    spec:
      containers:
      - name: main
        image: "vllm/vllm-openai:v0.6.0"
        args: ["--port", "8000"]
        command:
        - sh
        - -c
        - |
          echo start
          exec serve
        resources:
          # the card
          limits:
            nvidia.com/gpu: 2
            memory: 8Gi
          requests:
            nvidia.com/gpu: 2
      - name: side
        image: 'busybox'
"""
GPU_INDENTED = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      containers:
        - name: a
          image: x
          resources:
            limits: {nvidia.com/gpu: 1}
        - name: b
          image: y
          env:
            - name: MODE
              value: >-
                fast
                and small
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
  list: [a, b]
  script: |
    run it
  quoted: 'x y'
  other: "p q"
"""
BASES = [GPU, GPU_INDENTED, CONFIG]
HOSTILE = [
    "\x85", "\u2028", "\u2029", "\t", "\t\t", "\ufeff", "\r", "\r\n", "\xa0", "\u3000", "\u200b",
    "\u200e", "\ue000", "\u0378", "\U0010ffff", "\x00", "\x07", "\x1b", "\x7f", "\x9f",
    "\x0b", "\x0c", "\n\t\n", "\n  \t\n", "\t\n", "\n \x85\n",
    "& x", "&a ", "&a", "*a", "* ", "*", "&", "!t ", "!!str ", "!", "! x", "!!int ", "@", "`",
    "%YAML 1.1\n", "\n%TAG ! x\n", "? ", "?", ": ", ":", " : ", "<<: ", "<<", "- ", "-",
    "[", "]", "{", "}", ",", "[a, ", "{a: ", "#", " #", " # c", "'", '"', "\\", "\\\\",
    '"\\ud83d\\ude00"', '"\\ud83d"', '"\\x41"', '"\\N"', '"\\L"', '"\\P"', '"\\_"', '"\\u00e9"',
    '"\\t"', '"\\n"', '"\\/"', '"\\""', '"a\\\n  b"', '"a\n  b"', "'a\n  b'", "|", ">", "|-",
    ">+", "|2", "|1\n", "é", "中", "😀", "e\u0301", "ß", "\u00ad", "---", "...", "--- ",
    "yes", "~", "0x1F", ".inf", "-.5", "1:30", "null", "true", "1", "\n", "\n\n", "  ",
    "\n  ", "a\nb", "k" * 1100, "\u2028" * 3, "]]", "[a}", ", ,", ":x", "{a:1}", "[a: b]", "(", ")", "[(a)]", "{a: (b}", "{{ $x }}", "[$]",
]
# Pieces the allow-list lets in, so that drawn documents also land just inside it.
INSIDE = ["é", "中", "😀", "e\u0301", '"\\n"', '"\\t"', '"\\""', '"\\\\"', "#", " # c", "'", '"',
          "-", ": ", " ", "\n", "\n\n", "a\nb", "x: y", "- z", "[]", "{}", "[a]", "{a: b}", "|",
          ">-", "yes", "1.5", "'1'", "null", "--", "k" * 990, ":x", "a:b", "?x", "!x", "a&b", "a*b"]
LONG_KEYS = [990, 1000, 1001, 1020, 1023, 1024, 1025, 1100]


@st.composite
def hostile(draw: Any) -> str:
    """A base document with hostile pieces put in, or a deeply nested one."""
    kind = draw(st.sampled_from(["pieces", "pieces", "pieces", "long-key", "deep"]))
    if kind == "deep":
        return _deep(draw)
    text = draw(st.sampled_from(BASES))
    if kind == "long-key":
        key = draw(st.sampled_from(["k", "é", "中"])) * draw(st.sampled_from(LONG_KEYS))
        text += f"{key}: v\n" if draw(st.booleans()) else f"x:\n  {key}: v\n"
    for _ in range(draw(st.integers(1, 3))):
        text = _insert(draw, text, draw(st.sampled_from(HOSTILE) | st.sampled_from(INSIDE)))
    return text


def _insert(draw: Any, text: str, piece: str) -> str:
    """``piece`` anywhere, or after a colon, at a line's start or end, or inside a comment."""
    where = draw(st.sampled_from(["anywhere", "colon", "start", "end", "comment"]))
    marks = {"colon": [m.end() for m in re.finditer(":", text)],
             "start": [0, *(m.end() for m in re.finditer("\n", text))],
             "end": [m.start() for m in re.finditer("\n", text)],
             "comment": [m.end() for m in re.finditer("#", text)]}.get(where) or []
    at = draw(st.sampled_from(marks)) if marks else draw(st.integers(0, len(text)))
    return text[:at] + piece + text[at:]


def _deep(draw: Any) -> str:
    """Nesting around libyaml's limit, in a document no policy reads or in a GPU one the
    engine rewrites (whose read back then compares data that deep)."""
    depth = draw(st.sampled_from([10, 100, 300, 980, 998, 999, 1000, 1001, 1500]))
    shape = draw(st.sampled_from(["flow", "block", "mixed"]))
    head = draw(st.sampled_from(["apiVersion: v1\nkind: X\n", GPU]))
    if shape == "flow":
        body = "[" * depth + "]" * depth
    elif shape == "mixed":
        body = "{a: " * depth + "1" + "}" * depth
    else:
        return head + "".join(f"{'  ' * d}a{d}:\n" for d in range(depth)) \
            + "  " * depth + "v: 1\n"
    return f"{head}data: {body}\n"


@contextlib.contextmanager
def _deep_allowed() -> Iterator[None]:
    """Nesting up to libyaml's limit (1,000 levels) takes the test's own recursive copies
    and comparisons past Python's default limit: raised for them only, never for a run."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _show(text: str) -> str:
    """``text`` for a message, long runs of one character counted."""
    return re.sub(r"(.)\1{19,}", lambda m: f"<{m.group(1)!r}×{len(m.group(0))}>", repr(text))


def _libyaml(text: str) -> Parsed | None:
    try:
        return parse_with_libyaml(text, file="x")
    except TfpolicyError:
        return None


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile())
def test_what_the_fast_path_takes_libyaml_reads_alike(text: str) -> None:
    quick = fast.read(text)
    event("read fast" if quick is not None else "left to libyaml")
    if quick is not None:
        slow = _libyaml(text)
        assert slow is not None, f"read fast, refused by libyaml: {_show(text)}"
        with _deep_allowed():
            assert same(quick.data, slow.data), (_show(text), quick.data, slow.data)
    if screen.cleared(text):
        slow = _libyaml(text)
        assert slow is not None, f"cleared, refused by libyaml: {_show(text)}"
        assert slow.node is None or is_mapping_node(slow.node), _show(text)


def _run(argv: list[str]) -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", newline="")
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        code = main(argv)
        stdout.flush()
    return code, out.getvalue(), err.getvalue()


def _expected(text: str, policy: str) -> list[Any] | None:
    """Each document as libyaml reads it plus the edits planned on that reading, or ``None``
    when libyaml refuses one."""
    out = []
    try:
        raws = split_documents(text)  # what lies between documents, checked as a stream
    except TfpolicyError:
        return None
    for index, raw in enumerate(raws):
        parsed = _libyaml(raw.text)
        if parsed is None:
            return None
        if parsed.node is None or not isinstance(parsed.data, dict):
            out.append(parsed.data if parsed.node is not None else None)
            continue
        ctx = DocContext("w.yaml", index, lambda path: (0, 0), "default", False,
                         Capturer(raw.text, parsed.node, "w.yaml"))
        try:
            edits = plan_document(parsed.data, PLANNED[policy], ctx).edits
        except TfpolicyError:
            edits = []
        out.append(apply_edits(parsed.data, edits) if edits else parsed.data)
    return out


def _read_all(text: str) -> list[Any]:
    docs = []
    for raw in split_documents(text):
        parsed = parse_with_libyaml(raw.text, file="out")  # the output must be YAML
        docs.append(parsed.data if parsed.node is not None else None)
    return docs


@settings(max_examples=max(EXAMPLES // 10, 1), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile(), st.booleans(), st.sampled_from(["apply", "fix"]), st.sampled_from(POLICIES))
def test_the_cli_never_writes_what_libyaml_reads_otherwise(text: str, second: bool, command: str,
                                                           policy: str) -> None:
    stream = GPU + "---\n" + text if second else text
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "w.yaml"
        path.write_bytes(stream.encode("utf-8", "surrogatepass"))
        code, out, err = _run([command, "-p", policy, str(path)])
        written = path.read_bytes()
    assert code in (0, 1, 2), err
    with _deep_allowed():
        expected = _expected(stream, policy)
    event(f"exit {code}, libyaml {'refuses' if expected is None else 'reads'}")
    if code == 2:
        lines = err.splitlines()
        # Refused by libyaml: located at a column; valid YAML refused (a shape, say): a line.
        where = r".*w\.yaml:\d+:\d+: " if expected is None else r".*w\.yaml:\d+:"
        assert len(lines) == 1 and re.match(where, lines[0]), err
        assert out == b"" and written == stream.encode(), "nothing written on exit 2"
        return
    assert expected is not None, f"libyaml refuses this stream, exit {code}: {stream!r}"
    result = out if command == "apply" else written
    got = _read_all(result.decode("utf-8"))
    with _deep_allowed():
        assert len(got) == len(expected) and all(map(same, got, expected)), (stream, result)
