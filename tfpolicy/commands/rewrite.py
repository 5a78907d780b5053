"""What ``fix`` and ``check`` share: run the engine over files, in memory, writing nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfpolicy.commands.common import Run
from tfpolicy.edits import format_path
from tfpolicy.engine import Change
from tfpolicy.findings import Finding, Severity
from tfpolicy.pipeline import transform
from tfpolicy.sources import STDIN, manifest_files, read_text

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Rewrite:
    path: str
    text: str
    changed: bool
    bom: bool


def rewrite_files(run: Run, paths: tuple[str, ...]) -> tuple[list[Rewrite], list[Finding],
                                                             list[Change]]:
    """Every file's new text; any bad input raises before anything could be written."""
    rewrites, findings, changes = [], [], []
    for path in manifest_files(paths or (".",)):
        if path == STDIN:
            continue
        result = transform(read_text(path), run.policies, path, run.options)
        rewrites.append(Rewrite(path, result.text, result.changed, _has_bom(path)))
        findings.extend(result.findings)
        changes.extend(result.changes)
    return rewrites, findings, changes


def _has_bom(path: str) -> bool:
    with Path(path).open("rb") as handle:
        return handle.read(3) == BOM


def change_findings(changes: list[Change]) -> list[Finding]:
    """One finding per pod template that ``fix`` would rewrite."""
    return [
        Finding(Severity.WARNING, "would " + "; ".join(e.describe() for e in c.edits),
                "would-change", policy=c.policy, resource=c.resource, field=format_path(c.template),
                file=c.file, line=c.line + 1, column=c.column + 1)
        for c in changes
    ]
