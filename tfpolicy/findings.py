"""The one finding record, shaped like a KRM function ``Result`` (reference/hosts.md §1.1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Severity(IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True, order=True)
class ResourceRef:
    apiVersion: str
    kind: str
    name: str
    namespace: str = ""

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    message: str
    rule: str
    policy: str = ""
    resource: ResourceRef | None = None
    field: str = ""
    file: str = ""
    index: int = 0
    line: int = 0
    column: int = 0

    def sort_key(self) -> tuple[str, int, int, int, str, str]:
        return (self.file, self.line, self.column, -self.severity, self.rule, self.message)


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Findings in a deterministic order: by position, then severity, rule, message."""
    return sorted(set(findings), key=Finding.sort_key)


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)


def error_finding(message: str, file: str | None, line: int | None,
                  column: int | None) -> Finding:
    """A bad-input error (exit 2) as a finding, so ``--format`` renders it like the rest."""
    return Finding(Severity.ERROR, " ".join(message.split()), "bad-input", file=file or "",
                   line=line or 0, column=column or 0)
