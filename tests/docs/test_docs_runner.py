"""The docs runner fails on drift: a shown line the command does not print, an exit code
that differs, a marker that does not fit its block."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.docs.test_docs_examples as examples
from tests.docs.docblocks import Block, commands, missing, parse_run

PLAN = """plan: 8 steps on 48 GPUs in 8 nodes: every step fits

step 05 rightsize-1: fits
  pods: 4 TensorFusion, 15 device plugin
  GPUs: 25 device plugin, 3 TensorFusion, 20 idle; nodes in use 6
summary:
  GPUs in use: 29 → 10 (19 freed)
"""


def block(info: str, body: str, args: str, marker: str = "run") -> Block:
    return Block("docs/x.md", 1, info, tuple(body.split("\n")), marker, args)


def test_a_shown_line_the_output_lacks_is_named() -> None:
    drifted = ("step 05 rightsize-1: fits", "  pods: 12 TensorFusion, 7 device plugin")
    assert missing(drifted, PLAN) == "  pods: 12 TensorFusion, 7 device plugin"
    assert missing(("summary:", "  GPUs in use: 29 → 9 (20 freed)"), PLAN) == \
        "  GPUs in use: 29 → 9 (20 freed)"


def test_lines_in_a_run_are_consecutive_and_dots_skip() -> None:
    assert missing(("plan: …", "...", "summary:"), PLAN) == ""
    assert missing(("step 05 rightsize-1: fits", "  GPUs: …"), PLAN) == "  GPUs: …"
    assert missing(("step 05 rightsize-1: fits", "...", "  GPUs: 25 device plugin, …"), PLAN) == ""
    assert missing(("summary:", "...", "step 05 rightsize-1: fits"), PLAN) != ""  # in order


def test_a_case_statement_is_one_command_and_console_output_stays_with_its_command() -> None:
    sh = block("sh", "tfpolicy verify x  # wait\ncase $? in\n  0) echo \"done\" ;;\nesac", "")
    assert [c.text.split("\n")[0] for c in commands(sh)] == ["tfpolicy verify x  # wait",
                                                           "case $? in"]
    console = block("console", "$ a \\\n    --b\nout 1\n\n$ c\nout 2\n", "")
    assert [(c.text, c.shown) for c in commands(console)] == [
        ("a \\\n    --b", ("out 1",)), ("c", ("out 2",))]


def test_malformed_markers_are_refused() -> None:
    with pytest.raises(ValueError, match="exit=N"):
        parse_run(block("sh", "true", "cwd=examples"))
    with pytest.raises(ValueError, match="'cd=x'"):
        parse_run(block("sh", "true", "cd=x exit=0"))
    assert examples._problems(block("sh", "true\nfalse", "exit=0")) == [
        "docs/x.md:1: 1 exit codes for 2 commands"]
    assert examples._problems(block("sh", "true", "", marker="")) != []
    assert examples._problems(block("", "text", "", marker="")) != []
    assert examples._problems(block("sh", "true", "clusters", marker="needs")) != []


def test_a_drifted_example_fails_its_run(tmp_path: Path) -> None:
    shown = block("console", "$ tfpolicy gpus A100\n5 models; VRAM '?': not known from the name, "
                             "give vram", "exit=0")
    examples.test_doc_example_runs(shown, tmp_path / "as-printed")
    with pytest.raises(AssertionError, match="did not print"):
        examples.test_doc_example_runs(block("console", "$ tfpolicy gpus A100\n6 models", "exit=0"),
                              tmp_path / "other-count")
    with pytest.raises(AssertionError, match="exit codes differ"):
        examples.test_doc_example_runs(block("sh", "tfpolicy gpus A100", "exit=1"), tmp_path / "code")
