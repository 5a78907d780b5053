"""Findings as text, JSON or GitHub annotations: pure functions returning strings (a registry)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tfpolicy.findings import Finding, sorted_findings


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


FORMATS: dict[str, Callable[[list[Finding]], str]] = {"text": text, "json": json_, "github": github}
