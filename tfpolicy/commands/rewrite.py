"""What ``fix`` and ``check`` share: run the engine over files, in memory, writing nothing."""

from __future__ import annotations

from dataclasses import dataclass

from tfpolicy import yamlio
from tfpolicy.admission import webhook_traps
from tfpolicy.commands.common import Run
from tfpolicy.edits import Edit, format_path, get_path
from tfpolicy.engine import Change, objects, resource_ref
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding, Severity
from tfpolicy.pipeline import transform
from tfpolicy.sources import STDIN, Seen, manifest_files, read_seen
from tfpolicy.stages.common import TF

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Rewrite:
    path: str
    original: str
    text: str
    changed: bool
    bom: bool
    seen: Seen  # what ``fix`` checks is still there before it replaces the file


def rewrite_files(run: Run, paths: tuple[str, ...], *, keep_original: bool = False,
                  ) -> tuple[list[Rewrite], list[Finding], list[Change]]:
    """Every file's new text; any bad input raises before anything could be written.

    The original text is kept only when asked (``check --diff``): ``fix`` holds
    every changed file in memory until all passed, and need not hold it twice.
    """
    rewrites, findings, changes = [], [], []
    for path in manifest_files(paths or (".",)):
        if path == STDIN:
            raise TfpolicyError("fix and check work on files; use `tfpolicy apply -` for stdin")
        data, seen = read_seen(path)
        original = yamlio.decode(data, path)
        result = transform(original, run.policies, path, run.options)
        kept = original if keep_original else ""
        rewrites.append(Rewrite(path, kept, result.text, result.changed,
                                data.startswith(BOM), seen))
        findings.extend(result.findings)
        changes.extend(result.changes)
    return rewrites, findings, changes


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


# The engine already reports these for the templates it owns; keep one warning, not two.
_ENGINE_TWIN = {"webhook-enabled-replicas-not-enforced": "enabled-replicas-not-enforced",
                "webhook-enabled-replicas-no-owner": "enabled-replicas-bare-pod"}


def trap_findings(rewrites: list[Rewrite], run: Run, engine: list[Finding]) -> list[Finding]:
    """Webhook traps (reference §9) in what ``fix`` would leave, located at each template.

    Evaluated on the rewritten text, so a template tfpolicy rewrites is judged
    as tfpolicy writes it, and only hand-written traps remain.
    """
    known = {(f.resource, f.rule) for f in engine}
    found = [f for r in rewrites for f in _file_traps(r, run)]
    return [f for f in found if (f.resource, _ENGINE_TWIN.get(f.rule)) not in known]


def _file_traps(rewrite: Rewrite, run: Run) -> list[Finding]:
    markers = (*run.policies.markers(), TF)
    found: list[Finding] = []
    for raw in yamlio.split_documents(rewrite.text):
        if not any(marker in raw.text for marker in markers):
            continue
        parsed = yamlio.parse_document(raw.text, file=rewrite.path, line=raw.line)
        for base, obj in objects(parsed.data):
            for path in run.policies.registry.templates(obj):
                line, column = yamlio.locate(parsed.node, base + path)
                where = {"resource": resource_ref(obj), "file": rewrite.path,
                         "line": raw.line + line + 1, "column": column + 1}
                found.extend(t.finding(**where) for t in webhook_traps(
                    get_path(obj, path), str(obj.get("kind", "")), resources=run.policies.gpus))
    return found

