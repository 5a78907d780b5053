"""Golden cases: pre-allocating servers as their projects' own examples deploy them.

``tests/recommend/frameworks/<case>/`` and ``tests/cases/framework-pools/<case>/``
hold ``pod.yaml`` (a workload written as the framework's docs write it),
``policy.yaml`` (a ``rightsize`` with a hand-written VRAM limit) and ``check.txt``:
what ``tfpolicy check`` reports, run through the real entry point from the repository
root. The second folder holds servers of models the model table does not know (sized
from their names, or not at all), each under a small limit, and a setting left at its
default: every pool finding names the setting and the value, or the limit, that fits.
Regenerate with ``TFPOLICY_UPDATE_GOLDEN=1 pytest tests/recommend/test_frameworks_golden.py``
and review the diff against each framework's cited default (tfpolicy/frameworks/framework_table.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfpolicy.cli import main

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = (ROOT / "tests" / "recommend" / "frameworks", ROOT / "tests" / "cases" / "framework-pools")
CASES = sorted(p for folder in FOLDERS for p in folder.iterdir() if p.is_dir())
UPDATE = os.environ.get("TFPOLICY_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
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
    from tfpolicy.frameworks.framework_table import BUILTIN
    warned = " ".join((c / "check.txt").read_text(encoding="utf-8") for c in CASES)
    for framework in BUILTIN:
        assert f"{framework.name} (" in warned or f"{framework.name} pre-allocates" in warned, \
            framework.name


NAMED = {  # the named-model cases: what each must say, whatever the wording around it
    "sglang-llama-1b": ("warning", "--mem-fraction-static 0.85", "set --mem-fraction-static 0.54"),
    "sglang-name-only": ("warning", "1.7B parameters estimated from the name",
                         "set --mem-fraction-static 0.61"),
    "tgi-smollm2": ("warning", "1.7B parameters estimated from the name",
                    "no value of --cuda-memory-fraction fits"),
    "jax-fraction": ("info", "XLA_PYTHON_CLIENT_MEM_FRACTION .75", "the model's size is unknown"),
    "tensorflow-no-growth": ("info", "TF_FORCE_GPU_ALLOW_GROWTH not set",
                             "set TF_FORCE_GPU_ALLOW_GROWTH=true"),
    "vllm-8b-default": ("warning", "--gpu-memory-utilization not set: the default 0.92",
                        "no value of --gpu-memory-utilization fits"),
    "vllm-awq-name": ("warning", "14B parameters estimated from the name × 0.5 bytes",
                      "raise vram-limit to at least"),
    "vllm-no-headroom": ("info", "with no headroom", "--gpu-memory-utilization"),
    "vllm-unknown-model": ("info", "the model's size is unknown",
                           "which sizes the limit and --gpu-memory-utilization"),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_every_pool_finding_names_its_setting(name: str) -> None:
    """One framework-pool finding per case, at the severity the case is about, naming the
    setting (defaulted or not) and the fix; ``check.txt`` holds the rest of the wording."""
    severity, said, fix = NAMED[name]
    lines = [x for x in (ROOT / "tests" / "cases" / "framework-pools" / name / "check.txt")
             .read_text(encoding="utf-8").splitlines() if "(webhook-framework-pool)" in x]
    assert len(lines) == 1 and f"[{severity}]" in lines[0], lines
    assert said in lines[0] and fix in lines[0], lines[0]
