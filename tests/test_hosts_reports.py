"""Reports for CI through the CLI: SARIF, JUnit, --format on exit-2 errors, --diff with JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
BROKEN = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n"
          "    resources: {limits: {nvidia.com/gpu: 1}}\n    image: 'x\n")


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, cwd=cwd, text=True,
                          timeout=60, check=False)


def _files(tmp_path: Path) -> Path:
    shutil.copyfile(LLM, tmp_path / "llm.yaml")
    (tmp_path / "bad.yaml").write_text(BROKEN)
    return tmp_path


def test_sarif(tmp_path: Path) -> None:
    done = tfpolicy("check", "-p", "takeover", "--format", "sarif", "llm.yaml",
                    cwd=_files(tmp_path))
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    changed = [r for r in results if r["ruleId"] == "would-change"]
    assert len(changed) == 1 and changed[0]["level"] == "warning"
    where = changed[0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "llm.yaml"
    line = where["region"]["startLine"]
    assert LLM.read_text().splitlines()[line - 1].strip().startswith("template:")
    assert {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]} == {
        r["ruleId"] for r in results}


def test_junit(tmp_path: Path) -> None:
    done = tfpolicy("check", "-p", "takeover", "--format", "junit", "llm.yaml",
                    cwd=_files(tmp_path))
    assert done.returncode == 1, done.stderr
    suite = ET.fromstring(done.stdout).find("testsuite")
    assert suite is not None
    failures = suite.findall("testcase/failure")
    assert int(suite.get("failures", "")) == len(failures) >= 1
    assert any("would set" in (f.get("message") or "") for f in failures)
    tfpolicy("fix", "-p", "takeover", "llm.yaml", cwd=tmp_path)
    done = tfpolicy("check", "-p", "takeover", "--format", "junit", "llm.yaml", cwd=tmp_path)
    assert done.returncode == 0
    assert ET.fromstring(done.stdout).find("testsuite").get("failures") == "0"  # type: ignore[union-attr]


def test_format_is_honoured_on_exit_2(tmp_path: Path) -> None:
    _files(tmp_path)
    done = tfpolicy("check", "-p", "takeover", "--format", "github", "bad.yaml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("::error file=bad.yaml,line=7,"), done.stderr
    done = tfpolicy("check", "-p", "takeover", "--format=json", "bad.yaml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert json.loads(done.stderr)[0]["file"]["path"] == "bad.yaml"
    done = tfpolicy("check", "-p", "takeover", "bad.yaml", cwd=tmp_path)
    assert done.stderr.startswith("bad.yaml:7:") and done.stderr.count("\n") == 1


def test_diff_never_mixes_into_json(tmp_path: Path) -> None:
    done = tfpolicy("check", "-p", "takeover", "--format", "json", "--diff", "llm.yaml",
                    cwd=_files(tmp_path))
    assert done.returncode == 1
    assert json.loads(done.stdout)[0]["tags"]["rule"] == "would-change"
    assert done.stderr.startswith("--- a/llm.yaml\n+++ b/llm.yaml\n")
    done = tfpolicy("check", "-p", "takeover", "--diff", "llm.yaml", cwd=tmp_path)
    assert "--- a/llm.yaml" in done.stdout  # text: findings and diff together, as before
