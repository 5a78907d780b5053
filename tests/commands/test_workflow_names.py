"""Every message names its object and its place: a KServe component's own keys, an object
named by ``generateName``, one with no name at all (``tfpolicy check``, as users run it)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
WORKFLOW = ("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {{{meta}}}\n"
            "spec:\n  entrypoint: main\n  templates:\n  - name: main\n    container:\n"
            "      image: x\n      resources: {{limits: {{nvidia.com/gpu: 1}}}}\n")
# A name cut off (``Workflow/:``, ``Workflow/ns/:``), an empty path (``keys of  (``, ``of ;``).
NAMED = re.compile(r"\[\w+\] (Workflow/[^:]+):")
EMPTY = re.compile(r"/:|//|keys of (?:[ ;(]|$)| of  ")


def _check(folder: Path, policy: str) -> list[str]:
    done = subprocess.run([TFPOLICY, "check", "-p", policy, "."], cwd=folder, text=True,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    return done.stdout.splitlines()


def test_kserve_keys_set_on_the_component_name_its_path(tmp_path: Path) -> None:
    shutil.copyfile(ROOT / "tests/cases/rightsize/kind-kserve-isvc/input.yaml",
                    tmp_path / "isvc.yaml")
    for policy in ("takeover-1", "rightsize-example"):
        lines = _check(tmp_path, policy)
        assert lines and not [line for line in lines if EMPTY.search(line)], lines
        assert any("would set 2 keys of spec.predictor" in line for line in lines), lines


def test_generate_name_is_shown_as_a_prefix(tmp_path: Path) -> None:
    (tmp_path / "wf.yaml").write_text(WORKFLOW.format(meta="generateName: train-"))
    (tmp_path / "ns.yaml").write_text(
        WORKFLOW.format(meta="generateName: eval-, namespace: ml"))
    (tmp_path / "none.yaml").write_text(WORKFLOW.format(meta="labels: {a: b}"))
    lines = _check(tmp_path, "takeover-1")
    assert not [line for line in lines if EMPTY.search(line)], lines
    named = {found.group(1) for line in lines if (found := NAMED.search(line))}
    assert named == {"Workflow/train-* (generateName)", "Workflow/ml/eval-* (generateName)",
                     "Workflow/(no name)"}, lines
