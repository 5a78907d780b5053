"""Rollback gives the bytes back on layouts real repositories hold (docs/guarantees.md).

Each file of tests/corpus/roundtrip below is a layout rollback did not give back
byte for byte: ``kubectl create deployment … --dry-run=client -o yaml`` (its
``creationTimestamp: null``, a container whose first key is ``resources``),
a merge key inside a flow mapping, ``<<: [*a, *b]`` over a flow list (merging a
key a stage removes), ``template: *t`` in a ``kind: List``, compact JSON. Through
the CLI, after each stage and after chains of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
CORPUS = ROOT / "tests" / "corpus" / "roundtrip"
LAYOUTS = ["kubectl-create-deployment.yaml", "merge-in-flow-mapping.yaml",
           "merge-list-of-aliases.yaml", "list-template-alias.yaml", "compact-json.yaml"]
CHAINS = [("takeover",), ("takeover-25",), ("rightsize-example",), ("autoscale",),
          ("takeover", "rightsize-example"), ("rightsize-example", "takeover-25")]


def _apply(policy: str, text: bytes) -> bytes:
    done = subprocess.run([TFPOLICY, "apply", "-p", policy, "-"], input=text,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", LAYOUTS)
@pytest.mark.parametrize("chain", CHAINS, ids="+".join)
def test_rollback_gives_every_byte_back(name: str, chain: tuple[str, ...]) -> None:
    original = staged = (CORPUS / name).read_bytes()
    for stage in chain:
        staged = _apply(stage, staged)
    assert staged != original
    assert _apply("rollback", staged) == original


def test_a_stage_keeps_kubectls_nulls_and_the_first_key_on_the_dash_line() -> None:
    """What rightsize writes on kubectl's layout keeps every key no stage owns as it was."""
    original = (CORPUS / "kubectl-create-deployment.yaml").read_text()
    staged = _apply("rightsize-example", original.encode()).decode()
    assert staged.count("creationTimestamp: null\n") == 2
    assert "      - image: vllm/vllm\n        name: vllm\n" in staged
