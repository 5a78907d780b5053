"""Planning only reads the parsed document: the engine shares it with the stages uncopied.

``undo`` hands a template with no record to undo to the stage as it is,
and ``edited`` shares every part the edits do not touch; so a stage or a
writer that changed its input in place would change what the output is
checked against. Every golden case's input, through every built-in
policy, must come out of planning and writing exactly as it went in.
"""

from __future__ import annotations

import contextlib
import copy

import pytest

from tests.conftest import ROOT, policy_set
from tfpolicy.edits import same
from tfpolicy.errors import TfpolicyError
from tfpolicy.rewrite.engine import DocContext, plan_document
from tfpolicy.rewrite.pipeline import _locator
from tfpolicy.yamlio import rewrite_document, split_documents
from tfpolicy.yamlio.load import parse_document
from tfpolicy.yamlio.restore import Capturer

CASES = ROOT / "tests" / "cases"
INPUTS = sorted(p for p in CASES.glob("*/*/input.yaml"))
POLICIES = ["takeover", "takeover-25", "rightsize-example", "autoscale", "rollback"]


@pytest.mark.parametrize("policy", POLICIES)
def test_planning_and_writing_leave_the_parsed_data_as_read(policy: str) -> None:
    policies = policy_set(policy)
    planned = 0
    for path in INPUTS:
        for raw in split_documents(path.read_text()):
            try:
                parsed = parse_document(raw.text, file=str(path), line=raw.line)
            except TfpolicyError:
                continue
            if not isinstance(parsed.data, dict):
                continue
            before = copy.deepcopy(parsed.data)
            ctx = DocContext(str(path), 0, _locator(parsed, raw.line), "default", False,
                             Capturer(raw.text, parsed.node, str(path)))
            result = plan_document(parsed.data, policies, ctx)
            with contextlib.suppress(TfpolicyError):  # a refusal is fine here
                rewrite_document(raw, parsed, result.edits, file=str(path))
            planned += bool(result.edits)
            assert same(parsed.data, before), f"{path}: planning changed the data it read"
    assert planned > 10  # the cases do exercise the stages
