"""The CI templates' own commands, read from action.yml and the GitLab template, run in a
repository seeded with the example manifests; their reports checked for what code scanning
and GitLab read: the SARIF log against the official SARIF 2.1.0 schema (as published in the
npm registry, pinned by digest) and against what code scanning itself requires."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
INPUTS = {"paths": "manifests", "inventory": "inventory.yaml", "policy": "takeover-1",
          "wheel": "", "wheel-sha256": ""}
TEMPLATES = (ROOT / "action.yml", *sorted((ROOT / "docs" / "ci").glob("*.yml")),
             *sorted((ROOT / "ci" / "gitlab").glob("*.yml")))

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


# The OASIS SARIF 2.1.0 schema (rtm.5, the one code scanning accepts), as Microsoft's MIT
# package @microsoft/jest-sarif ships it: fetched from the npm registry once, checked
# against its digest, cached outside the repository.
SARIF_PACKAGE = "https://registry.npmjs.org/@microsoft/jest-sarif/-/jest-sarif-1.0.0-beta.0.tgz"
SARIF_PACKAGE_SHA256 = "748e2c3d1a842e7bb258416685c7ea3a0da40005b72267b2052c2856d48ad102"
SARIF_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"


@pytest.fixture(scope="session")
def sarif_schema() -> dict[str, object]:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tfpolicy-tests"
    tarball = cache / SARIF_PACKAGE.rsplit("/", 1)[1]
    if not tarball.exists():
        try:
            with urllib.request.urlopen(SARIF_PACKAGE, timeout=60) as answer:
                data = answer.read()
        except OSError as error:
            if os.environ.get("CI") == "true":
                raise
            pytest.skip(f"the SARIF schema's package could not be fetched: {error}")
        cache.mkdir(parents=True, exist_ok=True)
        tarball.write_bytes(data)
    data = tarball.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_PACKAGE_SHA256, "not the pinned package"
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        member = archive.extractfile(SARIF_MEMBER)
        assert member is not None
        schema: dict[str, object] = json.load(member)
    return schema


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "manifests", repo / "manifests")
    shutil.copy(ROOT / "examples" / "inventory.yaml", repo / "inventory.yaml")
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover-1]\n")
    (repo / ".git").mkdir()
    return repo


def _run(line: str, repo: Path, env: dict[str, str] | None = None) -> None:
    env = dict(os.environ, **(env or {}),
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(["bash", "-e", "-c", line], cwd=repo, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, (line, done.stderr)


def _inputs(text: str) -> str:
    return re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: INPUTS[m.group(1)], text)


def _tfpolicy_lines(lines: list[str]) -> list[str]:
    """The template's tfpolicy commands (installing it is this venv's job here)."""
    return [line for line in lines if line.startswith("tfpolicy ")]


def test_action_check_and_plan(tmp_path: Path, sarif_schema: dict[str, object]) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    repo = _repo(tmp_path)
    for step in action["runs"]["steps"]:
        if "run" in step and step["name"] != "Install tfpolicy":  # this venv's job here
            _run(step["run"], repo, {k: _inputs(v) for k, v in step.get("env", {}).items()})
    log = json.loads((repo / "tfpolicy.sarif").read_text())
    official = jsonschema.Draft4Validator(sarif_schema)
    official.validate(log)  # the official schema
    wrong = json.loads(json.dumps(log))
    wrong["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level: the schema bites
    assert not official.is_valid(wrong)
    jsonschema.validate(log, SARIF_SHAPE)  # and what code scanning needs beyond it
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


def test_action_inputs_reach_the_shell_only_through_env() -> None:
    """GitHub's hardening guide: an expression in ``run:`` is pasted into the script
    before the shell parses it, so a crafted input (a path holding ``$(…)``) would run."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    scripts = [step["run"] for step in action["runs"]["steps"] if "run" in step]
    assert scripts and not [s for s in scripts if "${{" in s]


def test_action_paths_are_words_never_code(tmp_path: Path) -> None:
    """A ``paths`` input holding shell syntax is a (missing) file name, nothing more."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    check = next(s for s in action["runs"]["steps"] if s.get("name") == "Check")
    repo = _repo(tmp_path)
    hostile = "manifests $(touch owned) `touch owned2` *"
    env = dict(os.environ, TFPOLICY_PATHS=hostile,
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(["bash", "-e", "-c", check["run"]], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert done.returncode != 0 and "$(touch" in done.stderr  # named as a file, not run
    assert not (repo / "owned").exists() and not (repo / "owned2").exists()


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_templates_install_tfpolicy_only_from_what_the_user_pinned(template: Path) -> None:
    """No bare ``pip install tfpolicy``: whoever registers the name on an index first
    would run code in every job (one that holds a write token and a kubeconfig). Each
    install is of a checkout (the action's own) or of a wheel whose SHA-256 is checked
    on the line before."""
    lines = [line.strip() for line in template.read_text().splitlines()]
    installs = [i for i, line in enumerate(lines)
                if "pip install" in line and not line.startswith("#")]
    assert installs or "- uses: ./tools/tfpolicy" in lines  # the action, from a pinned copy
    for i in installs:
        target = lines[i].split(" -- ", 1)[1] if " -- " in lines[i] else ""
        assert target in ('"$TFPOLICY_SOURCE"', '"$TFPOLICY_WHEEL"'), lines[i]
        if target == '"$TFPOLICY_WHEEL"':
            assert "sha256sum --check --strict" in lines[i - 1], lines[i - 1]
    assert "tfpolicy/tfpolicy" not in template.read_text()  # an address nobody owns
