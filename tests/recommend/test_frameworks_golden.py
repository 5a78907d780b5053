"""Golden cases: pre-allocating servers as their projects' own examples deploy them.

``tests/recommend/frameworks/<case>/`` holds ``pod.yaml`` (a workload written as
the framework's docs write it), ``policy.yaml`` (a ``rightsize`` with a hand-written
VRAM limit) and ``check.txt``: what ``tfpolicy check`` reports, run through the
real entry point from the repository root. Regenerate with
``TFPOLICY_UPDATE_GOLDEN=1 pytest tests/recommend/test_frameworks_golden.py`` and
review the diff against each framework's cited default (tfpolicy/frameworks/table.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted(p for p in (ROOT / "tests" / "recommend" / "frameworks").iterdir() if p.is_dir())
UPDATE = os.environ.get("TFPOLICY_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_on_a_framework(case: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    rel = case.relative_to(ROOT).as_posix()
    code = main(["check", "-p", f"{rel}/policy.yaml", f"{rel}/pod.yaml"])
    out = capsys.readouterr().out
    expected = case / "check.txt"
    if UPDATE:
        expected.write_text(out, encoding="utf-8")
    assert out == expected.read_text(encoding="utf-8")
    assert code == 1  # check reports the change it would make, whatever the framework


def test_every_builtin_framework_has_a_case() -> None:
    from tfpolicy.frameworks.table import BUILTIN
    warned = " ".join((c / "check.txt").read_text(encoding="utf-8") for c in CASES)
    for framework in BUILTIN:
        assert f"{framework.name} (" in warned or f"{framework.name} pre-allocates" in warned, \
            framework.name
