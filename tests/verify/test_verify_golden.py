"""Golden cases for ``tfpolicy verify``: tests/verify/cases/<case>/.

Each case folder holds ``args.txt`` (the command line after ``tfpolicy``,
run from the repository root), ``expected.txt`` (stdout, byte for byte) and
``exit.txt`` (the exit code). The snapshots they read are built by
``build_snapshots.py`` (see its docstring). Regenerate with
``TFPOLICY_UPDATE_GOLDEN=1`` and review the verdicts by hand.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted(p for p in (ROOT / "tests" / "verify" / "cases").iterdir() if p.is_dir())
UPDATE = os.environ.get("TFPOLICY_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verify_case(case: Path, capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = shlex.split((case / "args.txt").read_text(encoding="utf-8"))
    code = main(args)
    out, err = capsys.readouterr()
    if UPDATE:
        (case / "expected.txt").write_text(out, encoding="utf-8")
        (case / "exit.txt").write_text(f"{code}\n", encoding="utf-8")
    assert err == ""
    assert out == (case / "expected.txt").read_text(encoding="utf-8")
    assert code == int((case / "exit.txt").read_text(encoding="utf-8"))
