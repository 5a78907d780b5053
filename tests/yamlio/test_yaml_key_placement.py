"""New keys go where a person would write them (issue 14 §4), and rollback takes them out.

A pod template without ``metadata`` gets it before its ``spec`` (a comment
above ``spec`` stays with it); ``labels`` go before ``annotations``, whether
both are new or the annotations were there; every other new key still goes
after its mapping's last entry. Rolling the rewrite back gives the input's
bytes again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = Path(sys.executable).parent / "tfpolicy"
INPUT = (ROOT / "tests/cases/takeover/new-keys-where-people-write-them/input.yaml")


def _run(policy: str, stream: str) -> str:
    done = subprocess.run([str(TFPOLICY), "apply", "-p", policy, "-"], input=stream,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _order(doc: str, *keys: str) -> list[int]:
    return [doc.index(key) for key in keys]


def test_metadata_before_spec_and_labels_before_annotations() -> None:
    pod, bare, annotated = _run("takeover", INPUT.read_text()).split("---\n")
    assert _order(pod, "  labels:", "  annotations:", "# the pod's spec", "\nspec:") == \
        sorted(_order(pod, "  labels:", "  annotations:", "# the pod's spec", "\nspec:"))
    template = bare[bare.index("  template:"):]
    assert template.index("    metadata:") < template.index("    spec:")
    assert template.index("      labels:") < template.index("      annotations:")
    template = annotated[annotated.index("  template:"):]
    assert template.index("      labels:") < template.index("      annotations:")
    assert template.index("        a: b") < template.index("tensor-fusion.ai/isolation")


def test_rolling_back_gives_the_input_bytes_again() -> None:
    text = INPUT.read_text()
    assert _run("rollback", _run("takeover", text)) == text
