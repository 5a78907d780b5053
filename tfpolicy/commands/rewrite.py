"""What ``fix`` and ``check`` share: run the engine over files, in memory, writing nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfpolicy.commands.common import Run
from tfpolicy.edits import Edit, format_path
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
        Finding(Severity.WARNING, f"would {summarize(c)}", "would-change", policy=c.policy,
                resource=c.resource, field=format_path(c.template), file=c.file,
                line=c.line + 1, column=c.column + 1)
        for c in changes
    ]


def summarize(change: Change) -> str:
    """The edits of one template relative to it; several keys of one map are counted."""
    groups: dict[tuple[str, tuple[str | int, ...]], list[Edit]] = {}
    for edit in change.edits:
        parent = edit.path[len(change.template):-1]
        groups.setdefault((edit.op.value, parent), []).append(edit)
    parts = []
    for (op, parent), edits in groups.items():
        if len(edits) == 1:
            parts.append(f"{op} {format_path(edits[0].path[len(change.template):])}")
        else:
            parts.append(f"{op} {len(edits)} keys of {format_path(parent)}")
    return "; ".join(parts)
