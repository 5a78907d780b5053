"""Machine-read findings name an object as the text does: ``check --format json`` and the
KRM function's ``results`` keep ``resourceRef`` to the KRM form (``name`` required) with the
shown name, the ``generateName`` in a tag; SARIF and JUnit carry the same shown name. A
named Deployment's reference is as it always was."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
WORKFLOW = ("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {{{meta}}}\n"
            "spec:\n  entrypoint: main\n  templates:\n  - name: main\n    container:\n"
            "      image: x\n      resources: {{limits: {{nvidia.com/gpu: 1}}}}\n")
DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\n"
              "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
              "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
              "      - name: c\n        image: x\n        resources: {limits: {nvidia.com/gpu: 1}}\n")
FILES = {"wf.yaml": WORKFLOW.format(meta="generateName: train-"),
         "none.yaml": WORKFLOW.format(meta="labels: {a: b}"), "web.yaml": DEPLOYMENT}
WORKFLOW_REF = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow"}
WEB_REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "ml"}
# The KRM ResourceRef form (reference/hosts.md §1.1): nothing else, name required.
REF_KEYS = {"apiVersion", "kind", "name", "namespace"}
SHOWN = {"Workflow/train-* (generateName)", "Workflow/(no name)", "Deployment/ml/web"}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _run(folder: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([TFPOLICY, *args], cwd=folder, text=True, capture_output=True,
                          input=stdin, timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def _refs(results: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(name, generateName tag) of every result's resourceRef, each in the KRM form."""
    found = set()
    for r in results:
        ref = r["resourceRef"]
        assert set(ref) <= REF_KEYS and ref["name"], ref
        if ref["kind"] == "Deployment":
            assert ref == WEB_REF and "generateName" not in r["tags"], r
        else:
            assert {k: ref[k] for k in ("apiVersion", "kind")} == WORKFLOW_REF, ref
        found.add((ref["name"], r["tags"].get("generateName", "")))
    return found


EXPECTED = {("train-* (generateName)", "train-"), ("(no name)", ""), ("web", "")}


def test_check_json_carries_the_shown_name_and_the_prefix(folder: Path) -> None:
    results = json.loads(_run(folder, "check", "-p", "takeover-1", "--format", "json", "."))
    assert _refs(results) == EXPECTED


def test_krm_results_carry_the_shown_name_and_the_prefix(folder: Path) -> None:
    items = [yaml.safe_load(text) for text in FILES.values()]
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"},
              "data": {"policies": "takeover-1"}}
    stream = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                             "items": items, "functionConfig": config})
    results = yaml.safe_load(_run(folder, "krm", stdin=stream))["results"]
    assert _refs(results) == EXPECTED - {("web", "")}  # a rewrite alone is no result there


def test_sarif_and_junit_name_objects_as_the_text_does(folder: Path) -> None:
    text = _run(folder, "check", "-p", "takeover-1", ".")
    shown = set(re.findall(r"\] ([^:]+):", text))
    assert shown == SHOWN, text
    sarif = json.loads(_run(folder, "check", "-p", "takeover-1", "--format", "sarif", "."))
    said = {r["message"]["text"].split(": ")[0] for r in sarif["runs"][0]["results"]}
    assert said == SHOWN
    junit = _run(folder, "check", "-p", "takeover-1", "--format", "junit", ".")
    assert set(re.findall(r"\] ([^:]+):", junit)) == SHOWN
