"""Huge or odd numbers in policies are refused by ``validate`` at file:line:col, and ``apply``
refuses the same policy with exit 2 before writing anything (issue 8 §2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
HEAD = "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: p}\nspec:\n"
MANIFEST = ROOT / "examples" / "manifests"
RIGHTSIZE = "  stage: rightsize\n  resources:\n"


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60, check=False)


CASES = [
    # (spec, line:col, words of the message)
    ("  stage: takeover\n  enabledReplicas: '1" + "0" * 5000 + "%'\n", "6:20",
     "is not an integer from 1 to 2147483647"),
    ("  stage: takeover\n  enabledReplicas: 1" + "0" * 4000 + "\n", "6:20",
     "is not an integer from 1 to 2147483647"),
    ("  stage: takeover\n  enabledReplicas: 2147483648\n", "6:20", "2147483648 is not an integer"),
    ("  stage: takeover\n  enabledReplicas: '101%'\n", "6:20", "a percentage from 0% to 100%"),
    ("  stage: takeover\n  enabledReplicas: 3.0\n", "6:20", "must be a whole number"),
    ("  stage: takeover\n  enabledReplicas: .inf\n", "6:20", "inf is not an integer"),
    (RIGHTSIZE + "    tflops: {request: \"60\", limit: \"30\"}\n", "7:23",
     "tflops request '60' is above its limit '30'"),
    (RIGHTSIZE + "    vram: {request: 16Gi, limit: 8Gi}\n", "7:21",
     "vram request '16Gi' is above its limit '8Gi'"),
    (RIGHTSIZE + "    computePercent: {request: 60, limit: 30}\n", "7:31",
     "computePercent request 60 is above its limit 30"),
    (RIGHTSIZE + "    computePercent: {limit: 101}\n", "7:29", "at most 100"),
    (RIGHTSIZE + "    computePercent: {limit: '100.5'}\n", "7:29",
     "computePercent '100.5' must be above 0 and at most 100"),
    (RIGHTSIZE + "    tflops: {limit: .nan}\n", "7:21", "nan is not a finite number"),
    (RIGHTSIZE + "    tflops: {limit: .inf}\n", "7:21", "inf is not a Kubernetes quantity"),
    (RIGHTSIZE + "    tflops: {limit: '1e999999999'}\n", "7:21", "is not a Kubernetes quantity"),
    (RIGHTSIZE + "    tflops: {limit: '1e99'}\n", "7:21", "tflops '1e99' must be above 0 and at most"),
    (RIGHTSIZE + "    tflops: {limit: 1000000}\n", "7:21", "1000000 is not a Kubernetes quantity"),
    (RIGHTSIZE + "    vram: {limit: 1Ei}\n", "7:19", "vram '1Ei' must be above 0 and at most 16Ti"),
    (RIGHTSIZE + "    vram: {limit: '" + "9" * 30 + "'}\n", "7:19", "is not a Kubernetes quantity"),
    (RIGHTSIZE + "    vram: {limit: 8Gi}\n  workloads:\n  - match: {names: [a]}\n"
     "    resources: {tflops: {request: '50', limit: '40'}}\n", "10:35",
     "tflops request '50' is above its limit '40'"),
]


@pytest.mark.parametrize(("spec", "where", "words"), CASES, ids=range(len(CASES)))
def test_validate_refuses_at_file_line_col(tmp_path: Path, spec: str, where: str,
                                           words: str) -> None:
    (tmp_path / "p.yaml").write_text(HEAD + spec)
    result = tfpolicy("validate", "p.yaml", cwd=tmp_path)
    assert result.returncode == 2, result
    # Findings of a failed validate may move to stderr (issue 8 §5): read both.
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "[error]" in line]
    assert len(lines) == 1 and lines[0].startswith(f"p.yaml:{where}: [error] "), lines
    assert words in lines[0] and len(lines[0]) < 300, lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("spec", "where", "words"), CASES[:2] + CASES[6:7], ids=range(3))
def test_apply_refuses_the_same_policy_and_writes_nothing(tmp_path: Path, spec: str, where: str,
                                                          words: str) -> None:
    (tmp_path / "p.yaml").write_text(HEAD + spec)
    result = tfpolicy("apply", "-p", "p.yaml", str(MANIFEST), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"p.yaml:{where}: [error] ") and words in result.stderr
    assert "internal error" not in result.stderr


def test_sane_numbers_still_validate(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(
        HEAD + RIGHTSIZE + "    tflops: {request: 30, limit: '100000'}\n"
        "    vram: {request: 8Gi, limit: 16Ti}\n  enabledReplicas: 2147483647\n"
        "---\n" + HEAD + "  stage: takeover\n  enabledReplicas: '100%'\n"
        "---\n" + HEAD + RIGHTSIZE + "    computePercent: {request: '0.5', limit: 100}\n")
    result = tfpolicy("validate", "p.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "3 policies valid\n")
