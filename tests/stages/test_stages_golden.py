"""Golden cases of tests/cases/stages-*/ and tests/cases/hami-*/, run as tests/stages/test_golden.py
runs its groups: ``tfpolicy apply`` through the real entry point, then re-applying the
policy changes nothing and the built-in ``rollback`` gives the original back (or the case's
``rollback.yaml``, where its policy renames HAMi's resources: rollback must know them too).

Regenerate with ``TFPOLICY_UPDATE_GOLDEN=1 pytest tests/stages/test_stages_golden.py`` and
review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stages.test_golden import (
    ROOT,
    Runner,
    _docs,
    _expect,
    _expect_exit,
    _extra_args,
    _policy_args,
    _rel,
)
from tests.stages.test_golden import run as run  # the fixture

GROUP_PREFIXES = ("stages-", "hami-")


def _cases() -> list[Path]:
    groups = sorted(p for p in (ROOT / "tests" / "cases").iterdir()
                    if p.is_dir() and p.name.startswith(GROUP_PREFIXES))
    return [case for group in groups for case in sorted(group.iterdir())
            if (case / "input.yaml").is_file()]


CASES = [pytest.param(case, id=f"{case.parent.name}/{case.name}") for case in _cases()]


def test_cases_exist() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES)
def test_apply(case: Path, run: Runner) -> None:
    args = ["apply", *_policy_args(case), *_extra_args(case), _rel(case / "input.yaml")]
    code, out, err = run(args)
    assert code in (0, 1), err
    _expect(case / "expected.yaml", out)
    _expect(case / "findings.txt", err)
    _expect_exit(case, code)


@pytest.mark.parametrize("case", CASES)
def test_idempotent(case: Path, run: Runner) -> None:
    expected = case / "expected.yaml"
    code, out, err = run(["apply", *_policy_args(case), *_extra_args(case), _rel(expected)])
    assert code in (0, 1), err
    assert out == expected.read_text()


@pytest.mark.parametrize("case", CASES)
def test_rollback_restores(case: Path, run: Runner) -> None:
    original = case / "original.yaml"
    if not original.is_file():
        original = case / "input.yaml"
    rollback = case / "rollback.yaml"
    policy = _rel(rollback) if rollback.is_file() else "rollback"
    code, out, err = run(["apply", "-p", policy, _rel(case / "expected.yaml")])
    assert code in (0, 1), err
    assert _docs(out) == _docs(original.read_text())
