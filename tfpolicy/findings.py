"""The one finding record, shaped like a KRM function ``Result`` (docs/hosts.md, "KRM function")."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from tfpolicy.records import Record, replace


class Severity(IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


class ResourceRef(Record, order=True):
    apiVersion: str
    kind: str
    name: str
    namespace: str = ""
    generateName: str = ""  # an object named by the API server: the prefix it gives

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.shown_name}"

    @property
    def shown_name(self) -> str:
        """The name, else ``<generateName>* (generateName)`` (a prefix: an Argo Workflow,
        a Job made per run), else ``(no name)``: a message always names its object."""
        if self.name:
            return self.name
        if self.generateName:
            return f"{self.generateName}* (generateName)"
        return "(no name)"


def object_ref(obj: Mapping[str, Any]) -> ResourceRef:
    """The reference findings name an object by (``metadata.generateName`` too)."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return ResourceRef(str(obj.get("apiVersion", "")), str(obj.get("kind", "")),
                       str(meta.get("name") or ""), str(meta.get("namespace") or ""),
                       str(meta.get("generateName") or ""))


def shown_ref(obj: Mapping[str, Any], namespace: str = "", template: str = "") -> str:
    """How reports name an object's pod template: ``object_ref``'s name, in ``namespace``
    when the object names none, then the template's label when the object has several:
    ``Workflow/default/train-* (generateName)/templates-1``. No name segment is empty."""
    ref = object_ref(obj)
    return template_ref(replace(ref, namespace=ref.namespace or namespace), template)


def template_ref(ref: ResourceRef, template: str = "") -> str:
    """``ref`` as messages show it, then ``/<template>`` when one is named."""
    return f"{ref}/{template}" if template else str(ref)


class Finding(Record):
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


def fails(findings: list[Finding], fail_on: Severity = Severity.ERROR) -> bool:
    """Whether a finding is as severe as ``--fail-on`` asks to fail on."""
    return any(f.severity >= fail_on for f in findings)


# The rules of the warnings that say a GPU request stays with the device plugin or the DRA
# driver (docs/kinds.md): the engine's (a kind's field no pod is made from, a pod bound to a
# node) and the GPU request finder's (a claim's GPU device request among them).
NOT_MIGRATED_RULES = ("gpu-dra-claim", "gpu-init-container", "gpu-node-name", "gpu-placeholder",
                      "gpu-vendor-not-configured", "kind-not-migrated", "unknown-kind")


def not_migrated(findings: list[Finding]) -> dict[str, int]:
    """How many GPU requests were reported not migrated, by rule (sorted)."""
    counts: dict[str, int] = {}
    for f in set(findings):
        if f.rule in NOT_MIGRATED_RULES and f.severity is Severity.WARNING:
            counts[f.rule] = counts.get(f.rule, 0) + 1
    return dict(sorted(counts.items()))


def not_migrated_line(counts: dict[str, int]) -> str:
    """``N GPU requests not migrated (a b, c d)`` with a newline, or ``""`` when none."""
    total = sum(counts.values())
    if not total:
        return ""
    by = ", ".join(f"{n} {rule}" for rule, n in counts.items())
    noun = "request" if total == 1 else "requests"
    return f"tfpolicy: {total} GPU {noun} not migrated ({by})\n"


def error_finding(message: str, file: str | None, line: int | None,
                  column: int | None) -> Finding:
    """A bad-input error (exit 2) as a finding, so ``--format`` renders it like the rest."""
    return Finding(Severity.ERROR, " ".join(message.split()), "bad-input", file=file or "",
                   line=line or 0, column=column or 0)
