"""Findings as text, JSON, GitHub annotations, SARIF or JUnit XML: pure functions returning
strings (a registry)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tfpolicy import __version__
from tfpolicy.findings import Finding, Severity, sorted_findings


def _where(f: Finding) -> str:
    parts = [f.file or "-", str(f.line or 1), str(f.column or 1)]
    return ":".join(parts)


def text(findings: list[Finding]) -> str:
    """``file:line:col: [severity] message (policy)``, one per line."""
    lines = []
    for f in sorted_findings(findings):
        subject = f" {f.resource}:" if f.resource else ""
        lines.append(f"{_where(f)}: [{f.severity.label}]{subject} {f.message} "
                     f"({f.policy or f.rule})")
    return "".join(line + "\n" for line in lines)


def as_result(f: Finding) -> dict[str, Any]:
    """A KRM function ``Result`` (reference/hosts.md §1.1), severity always set."""
    result: dict[str, Any] = {"message": f.message, "severity": f.severity.label}
    if f.resource:
        ref = {"apiVersion": f.resource.apiVersion, "kind": f.resource.kind,
               "name": f.resource.name}
        if f.resource.namespace:
            ref["namespace"] = f.resource.namespace
        result["resourceRef"] = ref
        if f.field:
            result["field"] = {"path": f.field}
    if f.file:
        result["file"] = {"path": f.file, "index": f.index}
    result["tags"] = {"rule": f.rule, **({"policy": f.policy} if f.policy else {}),
                      "line": str(f.line), "column": str(f.column)}
    return result


def json_(findings: list[Finding]) -> str:
    return json.dumps([as_result(f) for f in sorted_findings(findings)], indent=2) + "\n"


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands, so findings show on the pull request's lines."""
    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = []
    for f in sorted_findings(findings):
        title = f"tfpolicy {f.policy or f.rule}"
        message = f.message.replace("%", "%25").replace("\n", "%0A")
        lines.append(f"::{level[f.severity.label]} file={f.file},line={f.line or 1},"
                     f"col={f.column or 1},title={title}::{message}")
    return "".join(line + "\n" for line in lines)


# SARIF 2.1.0, the format code-scanning uploads take: one run, one result per finding.
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif(findings: list[Finding]) -> str:
    ordered = sorted_findings(findings)
    rules = sorted({f.rule for f in ordered})
    driver = {"name": "tfpolicy", "version": __version__,
              "rules": [_sarif_rule(r) for r in rules]}
    run = {"tool": {"driver": driver}, "results": [_sarif_result(f) for f in ordered]}
    log = {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


# Code scanning shows a rule's name, short description and help, not only its id; the
# help points at where each finding kind is explained.
_RULE_HELP = "tfpolicy finding {id}: see docs/commands.md and docs/stages.md of tfpolicy."


def _sarif_rule(rule: str) -> dict[str, Any]:
    words = rule.replace("-", " ")
    return {"id": rule, "name": "".join(w.capitalize() for w in rule.split("-")),
            "shortDescription": {"text": words[:1].upper() + words[1:]},
            "help": {"text": _RULE_HELP.format(id=rule)}}


def _sarif_result(f: Finding) -> dict[str, Any]:
    region = {"startLine": f.line or 1, "startColumn": f.column or 1}
    artifact: dict[str, Any] = {"uri": f.file or "-"}
    if f.file and not f.file.startswith("/"):  # relative to the checkout code scanning reads
        artifact["uriBaseId"] = "%SRCROOT%"
    location = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    subject = f"{f.resource}: " if f.resource else ""
    result: dict[str, Any] = {"ruleId": f.rule, "level": _SARIF_LEVEL[f.severity],
                              "message": {"text": subject + f.message},
                              "locations": [location]}
    if f.policy:
        result["properties"] = {"policy": f.policy}
    return result


def junit(findings: list[Finding]) -> str:
    """JUnit XML for CI test reports: a finding is a test case, failed when not info."""
    ordered = sorted_findings(findings)
    failed = sum(f.severity is not Severity.INFO for f in ordered)
    cases = [_junit_case(f) for f in ordered] or [
        '    <testcase classname="tfpolicy" name="no findings"/>\n']
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
            f'  <testsuite name="tfpolicy" tests="{len(cases)}" failures="{failed}" '
            'errors="0">\n' + "".join(cases) + "  </testsuite>\n</testsuites>\n")


def _junit_case(f: Finding) -> str:
    # Imported here: xml.sax.saxutils pulls in urllib and http.client, a sixth of the
    # start-up of every command, for the one format that needs it.
    from xml.sax.saxutils import escape, quoteattr

    name = quoteattr(f"{_where(f)} {f.resource or ''} {f.rule}".replace("  ", " "))
    head = f"    <testcase classname={quoteattr(f.file or '-')} name={name}"
    if f.severity is Severity.INFO:
        return f"{head}>\n      <system-out>{escape(f.message)}</system-out>\n    </testcase>\n"
    message = f"{f.message} ({f.policy or f.rule})"
    return (f"{head}>\n      <failure type={quoteattr(f.severity.label)} "
            f"message={quoteattr(message)}>{escape(message)}</failure>\n    </testcase>\n")


FORMATS: dict[str, Callable[[list[Finding]], str]] = {
    "text": text, "json": json_, "github": github, "sarif": sarif, "junit": junit,
}
# Formats a program reads: nothing else may share their stream (``check --diff``).
MACHINE = ("json", "sarif", "junit")
