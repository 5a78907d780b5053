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


def _cases(report: str) -> dict[str, ET.Element]:
    suite = ET.fromstring(report).find("testsuite")
    assert suite is not None
    cases = {c.get("name", ""): c for c in suite.findall("testcase")}
    assert int(suite.get("tests", "")) == len(cases)
    assert int(suite.get("failures", "")) == len(suite.findall("testcase/failure"))
    return cases


def test_junit_has_one_case_per_checked_file(tmp_path: Path) -> None:
    """The count is the files checked, whatever the findings: clean files pass."""
    _files(tmp_path)
    shutil.copyfile(ROOT / "examples" / "manifests" / "monitoring.yaml", tmp_path / "mon.yaml")
    done = tfpolicy("check", "-p", "takeover", "--format", "junit", "llm.yaml", "mon.yaml",
                    cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    cases = _cases(done.stdout)
    assert sorted(cases) == ["llm.yaml", "mon.yaml"]
    failure = cases["llm.yaml"].find("failure")
    assert failure is not None and "would set" in (failure.text or "")
    assert cases["mon.yaml"].find("failure") is None  # no GPU there: nothing to change
    tfpolicy("fix", "-p", "takeover", "llm.yaml", cwd=tmp_path)
    done = tfpolicy("check", "-p", "takeover", "--format", "junit", "llm.yaml", "mon.yaml",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    after = _cases(done.stdout)
    assert sorted(after) == ["llm.yaml", "mon.yaml"]  # the same count, now all passing
    assert all(c.find("failure") is None for c in after.values())


def test_junit_of_apply_lists_every_input(tmp_path: Path) -> None:
    """apply's report (on stderr: stdout is the manifests) has a case per file read, to
    stdout or to a folder, stdin named as in its findings."""
    _files(tmp_path)
    shutil.copyfile(ROOT / "examples" / "manifests" / "monitoring.yaml", tmp_path / "mon.yaml")
    done = tfpolicy("apply", "-p", "takeover", "--format", "junit", "llm.yaml", "mon.yaml",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tensor-fusion.ai/enabled" in done.stdout
    cases = _cases(done.stderr)
    assert sorted(cases) == ["llm.yaml", "mon.yaml"]
    assert all(c.find("failure") is None for c in cases.values())
    folder = tfpolicy("apply", "-p", "takeover", "--format", "junit", "-o", "out", "llm.yaml",
                      "mon.yaml", cwd=tmp_path)
    assert folder.returncode == 0, folder.stderr
    assert sorted(_cases(folder.stderr)) == ["llm.yaml", "mon.yaml"]
    piped = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "--format", "junit", "-"],
                           input=(tmp_path / "mon.yaml").read_text(), capture_output=True,
                           text=True, timeout=60, check=False)
    assert piped.returncode == 0, piped.stderr
    assert sorted(_cases(piped.stderr)) == ["<stdin>"]


def test_junit_of_fix_fails_the_files_it_rewrote(tmp_path: Path) -> None:
    """fix exits 1 when it changed a file: that file's case fails, the others pass; run
    again, nothing changes and every case passes."""
    _files(tmp_path)
    shutil.copyfile(ROOT / "examples" / "manifests" / "monitoring.yaml", tmp_path / "mon.yaml")
    done = tfpolicy("fix", "-p", "takeover", "--format", "junit", "llm.yaml", "mon.yaml",
                    cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout == "Fixing llm.yaml\n"
    cases = _cases(done.stderr)
    assert sorted(cases) == ["llm.yaml", "mon.yaml"]
    failure = cases["llm.yaml"].find("failure")
    assert failure is not None and failure.get("type") == "fixed"
    assert cases["mon.yaml"].find("failure") is None
    again = tfpolicy("fix", "-p", "takeover", "--format", "junit", "llm.yaml", "mon.yaml",
                     cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, ""), again.stderr
    after = _cases(again.stderr)
    assert sorted(after) == ["llm.yaml", "mon.yaml"]
    assert all(c.find("failure") is None for c in after.values())
    shutil.copyfile(LLM, tmp_path / "fresh.yaml")
    text = tfpolicy("fix", "-p", "takeover", "fresh.yaml", cwd=tmp_path)
    assert (text.returncode, text.stdout) == (1, "Fixing fresh.yaml\n"), text.stderr
    assert "rewritten in place" not in text.stderr  # JUnit's own line, in no other format


def test_junit_failures_follow_fail_on(tmp_path: Path) -> None:
    """A warning fails its file's case exactly when it fails the run (--fail-on)."""
    pod = ("apiVersion: example.com/v1\nkind: Trainer\nmetadata: {name: t}\nspec:\n"
           "  containers:\n  - name: a\n    resources: {limits: {nvidia.com/gpu: 1}}\n")
    (tmp_path / "odd.yaml").write_text(pod)
    default = tfpolicy("check", "-p", "takeover", "--format", "junit", "odd.yaml", cwd=tmp_path)
    strict = tfpolicy("check", "-p", "takeover", "--format", "junit", "--fail-on", "warning",
                      "odd.yaml", cwd=tmp_path)
    assert (default.returncode, strict.returncode) == (0, 1), default.stdout + strict.stdout
    assert _cases(default.stdout)["odd.yaml"].find("failure") is None
    assert "unknown-kind" in (_cases(default.stdout)["odd.yaml"].findtext("system-out") or "")
    assert _cases(strict.stdout)["odd.yaml"].find("failure") is not None


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
