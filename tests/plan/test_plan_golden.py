"""Golden rollout cases for ``tfpolicy plan``: tests/cases/plan-rollout/<case>/.

Each folder holds ``input.yaml`` (manifests), ``inventory.yaml``, ``policy.txt``
(a built-in policy name), optional ``args.txt`` (more CLI arguments) and the
expected outcome: ``expected.txt`` (stdout, byte for byte) and ``exit.txt``
(only when the exit code is not 0). The cases pin each controller's loop
(DESIGN §4): a surge pod that waits for the GPU an old pod frees, the same
with maxUnavailable 0 (a deadlock), Recreate, StatefulSet partition and
OnDelete, an Argo Rollout canary.

Regenerate with ``TFPOLICY_UPDATE_GOLDEN=1`` and review the diff by hand.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main

CASES = sorted(p for p in (ROOT / "tests" / "cases" / "plan-rollout").iterdir()
               if (p / "input.yaml").is_file())
UPDATE = os.environ.get("TFPOLICY_UPDATE_GOLDEN") == "1"


def _args(case: Path) -> list[str]:
    rel = case.relative_to(ROOT).as_posix()
    extra = case / "args.txt"
    more = shlex.split(extra.read_text()) if extra.is_file() else []
    return ["plan", "-p", (case / "policy.txt").read_text().strip(),
            "--inventory", f"{rel}/inventory.yaml", *more, f"{rel}/input.yaml"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_plan_rollout_case(case: Path, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code = main(_args(case))
    out = capsys.readouterr().out
    if UPDATE:
        (case / "expected.txt").write_text(out)
        exit_file = case / "exit.txt"
        if code:
            exit_file.write_text(f"{code}\n")
        elif exit_file.exists():
            exit_file.unlink()
    expected_code = int((case / "exit.txt").read_text()) if (case / "exit.txt").is_file() else 0
    assert (code, out) == (expected_code, (case / "expected.txt").read_text())


def test_the_cases_say_what_the_issue_asks() -> None:
    """The verdicts themselves, so a regenerated file cannot quietly flip them."""
    verdicts = {c.name: (c / "expected.txt").read_text().splitlines()[0] for c in CASES}
    assert verdicts["deployment-2x2-fits"].endswith("every step fits")
    assert verdicts["deployment-no-unavailable-deadlock"].endswith("a step does not fit")
    assert verdicts["statefulset-partition"].endswith("every step fits")
    partition = (ROOT / "tests/cases/plan-rollout/statefulset-partition/expected.txt").read_text()
    assert "pods: 2 TensorFusion, 2 device plugin" in partition.split("step 04")[1]
