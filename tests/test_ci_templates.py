"""The CI templates' own commands, read from action.yml and the GitLab template, run in a
repository seeded with the example manifests; their reports checked for what code scanning
and GitLab read. (A focused structural schema stands in for the SARIF 2.1.0 schema.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import yaml

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
INPUTS = {"paths": "manifests", "inventory": "inventory.yaml", "policy": "takeover-1",
          "version": "tfpolicy"}

# What GitHub code scanning requires of each rule and result (SARIF 2.1.0 §3.49, §3.27).
SARIF_SHAPE = {
    "type": "object", "required": ["version", "runs"],
    "properties": {"version": {"const": "2.1.0"}, "runs": {"type": "array", "minItems": 1,
        "items": {"type": "object", "required": ["tool", "results"], "properties": {
            "tool": {"required": ["driver"], "properties": {"driver": {
                "required": ["name", "rules"], "properties": {"rules": {"items": {
                    "required": ["id", "name", "shortDescription", "help"],
                    "properties": {"shortDescription": {"required": ["text"]},
                                   "help": {"required": ["text"]}}}}}}}},
            "results": {"items": {"required": ["ruleId", "level", "message", "locations"],
                "properties": {"locations": {"items": {"properties": {"physicalLocation": {
                    "required": ["artifactLocation", "region"], "properties": {
                        "artifactLocation": {"required": ["uri", "uriBaseId"], "properties": {
                            "uri": {"pattern": "^[^/]"}}},
                        "region": {"required": ["startLine"]}}}}}}}}}}}}},
}


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "manifests", repo / "manifests")
    shutil.copy(ROOT / "examples" / "inventory.yaml", repo / "inventory.yaml")
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover-1]\n")
    (repo / ".git").mkdir()
    return repo


def _run(line: str, repo: Path) -> None:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(["bash", "-c", line], cwd=repo, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, (line, done.stderr)


def _tfpolicy_lines(lines: list[str]) -> list[str]:
    """The template's tfpolicy commands (installing it is this venv's job here)."""
    return [line for line in lines if line.startswith("tfpolicy ")]


def test_action_check_and_plan(tmp_path: Path) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    runs = [re.sub(r"\$\{\{ inputs\.(\w+) \}\}", lambda m: INPUTS[m.group(1)], step["run"])
            for step in action["runs"]["steps"] if "run" in step]
    repo = _repo(tmp_path)
    for line in _tfpolicy_lines(runs):
        _run(line, repo)
    log = json.loads((repo / "tfpolicy.sarif").read_text())
    jsonschema.validate(log, SARIF_SHAPE)
    results = log["runs"][0]["results"]
    assert results and all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                           .startswith("manifests/") for r in results)
    ids = {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in results} == ids
    assert (repo / "plan.html").read_text().lstrip().lower().startswith("<!doctype html")


def test_gitlab_junit_report(tmp_path: Path) -> None:
    template = yaml.safe_load((ROOT / "ci" / "gitlab" / "tfpolicy.gitlab-ci.yml").read_text())
    job = template["tfpolicy"]
    report = job["artifacts"]["reports"]["junit"]
    repo = _repo(tmp_path)
    check, _gate = _tfpolicy_lines([line.replace("$TFPOLICY_PATHS", "manifests")
                                    for line in job["script"]])
    _run(check, repo)
    root = ET.parse(repo / report).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    assert root.tag in ("testsuites", "testsuite") and suites
    cases = [case for suite in suites for case in suite.findall("testcase")]
    assert cases and all(case.get("name") and case.get("classname") is not None
                         for case in cases)
    assert any(case.find("failure") is not None for case in cases)
