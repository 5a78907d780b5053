"""The screens' shortcuts decide exactly as the plain rules do, and each reads a line once.

The allow-list (allow.py) and the typing screens (scalars.py) skip patterns
that cannot match (no bracket, no ``#``) and find a line's open flow
collection from its last bracket only. Both are checked here against the
plain form of each rule, on drawn lines full of the characters and words
the screens look for; and a 200 KB line of brackets is screened in linear
time (issue 24 §4).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.yamlio.test_yaml_fast_reader import TOKENS
from tfpolicy.cli import main
from tfpolicy.yamlio import allow, fast, scalars, screen

PIECES = [*TOKENS, "inf", "-.Inf", "+.inf", "x.nan", "NaN", "infinity", "info", "maintenance",
          "@v", "a@b", "`x", "!tag", "*ref", "&anchor", "* * *", "[a, b", "{a: 1", "[]", "{}",
          "?", "? k", "<<", "<<: x", "%YAML", "\t", "\x07", "\x85", "\u2028", "\ufeff", "é",
          "-", ":", ",", "#", "'q'", '"d"', "key:", " ", "  ", "\r", "true:", "8080:", "null:",
          "1.5:", "[yes]", "{on: 1}", "a,no", "yes#c", "\t:", "- 1", "-1", "+", "1e3:", "[", "]",
          "{", "}", "a#b", "|", ">-", "|2", "\\", '"\\n"', '"\\x41"', "k" * 990]
LINE = st.lists(st.sampled_from(PIECES), max_size=5).map(" ".join)
LINES = st.lists(LINE, min_size=1, max_size=6)


_SIMPLE_FLOW = re.compile(r"""(?:[\[\]{}, ]|: |"[^"\\\n]*"|'[^'\n]*'|[A-Za-z0-9_./+=()$-])*""")


_QUOTED_PREFIX = re.compile(r"""(?:[^\[{"'\n]|"[^"\\\n]*"|'[^'\n]*')*""")


def _plain_forms(text: str) -> bool:
    """allow._forms as plain rules, line by line: the indicator pattern; a line whose some
    opener has no closer after it; a closer with more than blanks, closers, a comma or a
    comment after it; a line whose flow part holds more than simple tokens."""
    if allow._INDICATOR.search("\n" + text):
        return True
    for match in allow._AT_TOKEN.finditer("\n" + text):
        before = ("\n" + text)[:match.start()].rstrip(" ")
        if before[-1] in "\n[{,:?-":
            return True
    flow = "[" in text or "{" in text  # a closer in a text with no opener is a plain word's
    for line in text.split("\n"):
        for at, char in enumerate(line):
            if char in "[{" and not any(c in "]}" for c in line[at:]):
                return True
            after = line[at + 1:].lstrip(" ")
            if (char in "]}" and flow and after and not after[0].isspace()
                    and after[0] not in "]},#"):
                return True
        prefix = _QUOTED_PREFIX.match(line)
        assert prefix is not None
        rest = line[prefix.end():]
        if rest[:1] in ("'", '"') and ("[" in rest or "{" in rest):
            return True
        if rest[:1] in ("[", "{") and not _SIMPLE_FLOW.fullmatch(rest, 1):
            return True
    return False


def _plain_respelled(text: str) -> bool:
    for match in scalars._INF_OR_NAN.finditer(text):
        at = match.start()
        at -= at > 0 and text[at - 1] == "."
        at -= at > 0 and text[at - 1] in "+-"
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_.+-"):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(LINES, st.booleans())
def test_the_shortcuts_find_what_the_plain_patterns_find(lines: list[str], ended: bool) -> None:
    text = "\n".join(lines) + ("\n" if ended else "")
    assert allow._forms(text) == _plain_forms(text)
    assert scalars.respelled(text) == _plain_respelled(text)


def test_a_long_line_of_brackets_is_screened_in_one_pass() -> None:
    """200 KB of nested brackets on one line: each screen reads it once (the open-flow
    pattern used to start again at every bracket: 57 s), and the line is too long anyway."""
    line = "[" * 100_000 + "]" * 100_000
    text = f"a: {line}\n"
    assert not allow._forms(text)  # closed on its line, no comment
    assert allow._forms(f"a: {line}[\n") and allow._forms(f"a: {line} #\n")
    assert not allow._forms(f"a: {'[b, ' * 50_000}c{']' * 50_000}\n")
    assert not allow.admitted(text)  # over MAX_LINE characters: libyaml's


def test_apply_output_is_unchanged_by_the_shortcuts(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A GPU workload with an @ digest, a flow list and an infinity-like word goes through."""
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w\n"
        "  annotations:\n    note: inference at infinity-scale\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: c\n"
        "        image: r/i@sha256:0123\n        args: [\"--x\", \"1\"]\n"
        "        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
    )
    path = tmp_path / "w.yaml"
    path.write_text(text)
    assert main(["apply", "-p", "takeover", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r'tensor-fusion\.ai/enabled: "true"', out)
    assert "image: r/i@sha256:0123\n" in out and 'args: ["--x", "1"]\n' in out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["---", "...", "--- a", "---\t", "----", "...x", " ---", "a: b",
                                 "#", "", "\r", "--- # c", "...\r"]), max_size=8), st.booleans())
def test_marker_lines_are_counted_as_a_line_anchored_pattern_counts_them(
        lines: list[str], ended: bool) -> None:
    from tfpolicy.yamlio.faithful import _marker_lines

    text = "\n".join(lines) + ("\n" if ended else "")
    plain = re.compile(r"^(?:---|\.\.\.)(?:[ \t\r\n]|$)", re.MULTILINE)
    assert _marker_lines(text) == len(plain.findall(text))


MARKER_PIECES = ["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "amd.com/gpu", "Workflow",
                 "CronWorkflow", "tfpolicy.dev/", "a/b", "/x", "//", "MPIJob", "nvidia.com",
                 "k8s.nvidia.com/x", "aWorkflowb", "GPU", "gpu", "gpu.intel.com/", "-npu", "NPU",
                 "/npu", "a.com/", "m\u00e9/"]
# Other cases of the markers, and characters whose lower case is longer or ASCII (U+0130,
# the Kelvin sign): found only as written, wherever they stand.
OTHER_PIECES = ["nvidia", ".com/", "Work", "flow", " ", "/", "Gpu", "gPU", "NVIDIA.COM/gpu",
                "workflow", "\u0130", "\u212a", "Npu", "A.COM/"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(MARKER_PIECES), min_size=1, max_size=6),
       st.lists(st.sampled_from([*MARKER_PIECES, *OTHER_PIECES]), max_size=8))
def test_the_marker_anchors_find_what_a_test_per_marker_finds(markers: list[str],
                                                              pieces: list[str]) -> None:
    from tfpolicy.rewrite.pipeline import Markers

    text = "".join(pieces)
    found = Markers.of(tuple(markers)).found_in(text)
    assert found == any(m in text for m in markers)



def test_json_longer_than_the_buffer_guess_is_written_again_whole() -> None:
    import json

    import ryml  # type: ignore[import-untyped]

    # A guess of 0 gives a buffer of 512 bytes, which this JSON does not fit.
    text = "".join(f"{' ' * d}k{d}:\n" for d in range(60)) + " " * 60 + "v: 1\n"
    tree = ryml.parse_in_arena(text.encode())
    small, roomy = screen.json_of(tree, tree.root_id(), 0), screen.json_of(tree, tree.root_id(),
                                                                           10 * len(text))
    assert len(small) > 512
    assert small == roomy and json.loads(small)["k0"]["k1"]["k2"]
    assert fast.read(text) is not None and screen.cleared(text)


def test_json_is_written_on_one_line_and_the_style_put_back() -> None:
    """``json_of`` styles the node flow for the emitter: the JSON has no layout at all,
    and the tree, which positions and styles are read from later, is as it was."""
    import json

    import ryml  # type: ignore[import-untyped]

    text = "a: 1\nb: {c: [1, 2]}\nd:\n  - e: |\n      x\n      y\n    f: [\n      g]\n"
    tree = ryml.parse_in_arena(text.encode())
    root = screen.document_root(tree)
    assert root is not None and root >= 0
    before = tree.type(root)
    written = bytes(screen.json_of(tree, root, len(text)))
    assert written == json.dumps({"a": 1, "b": {"c": [1, 2]}, "d": [{"e": "x\ny\n", "f": ["g"]}]},
                                 separators=(",", ": ")).encode()
    assert tree.type(root) == before and not tree.is_flow(root)
