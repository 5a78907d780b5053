"""What ``check`` reports besides the engine's findings: each pod template ``fix`` would
rewrite, and the TensorFusion webhook's traps that ``fix`` would leave (docs/kinds.md)."""

from __future__ import annotations

from tfpolicy import yamlio
from tfpolicy.edits import Edit, format_path
from tfpolicy.files.runner import Rewrite
from tfpolicy.files.scopes import Run, Scope
from tfpolicy.findings import Finding, Severity
from tfpolicy.rewrite.engine import Change, objects, resource_ref
from tfpolicy.rewrite.pipeline import Markers
from tfpolicy.stages.common import TF


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
            parts.append(f"{op} {_named(change, edits[0].path[len(change.template):])}")
        else:
            parts.append(f"{op} {len(edits)} keys of {_named(change, parent)}")
    return "; ".join(parts)


def _named(change: Change, path: tuple[str | int, ...]) -> str:
    """A path relative to the template; the template itself by its real path (a KServe
    component's keys sit right on it: ``spec.predictor``), or the object's root."""
    if path:
        return format_path(path)
    return format_path(change.template) if change.template else "the object's root"


# The engine already reports these for the templates it owns; keep one warning, not two.
_ENGINE_TWIN = {"webhook-enabled-replicas-not-enforced": "enabled-replicas-not-enforced",
                "webhook-enabled-replicas-no-owner": "enabled-replicas-bare-pod"}


def trap_findings(rewrites: list[Rewrite], run: Run, engine: list[Finding]) -> list[Finding]:
    """The webhook's traps (``tfpolicy.admission.traps``) in what ``fix`` would leave,
    located at each template.

    Evaluated on the rewritten text, so a template tfpolicy rewrites is judged
    as tfpolicy writes it, and only hand-written traps remain.
    """
    known = {(f.resource, f.rule) for f in engine}
    found = [f for r in rewrites for f in _file_traps(r, run)]
    return [f for f in found if (f.resource, _ENGINE_TWIN.get(f.rule)) not in known]


def _file_traps(rewrite: Rewrite, run: Run) -> list[Finding]:
    from tfpolicy.admission import webhook_traps  # here: only check reports them

    scope = run.scope(rewrite.path)  # a file rewritten was governed
    policies = scope.policies if isinstance(scope, Scope) else run.policies
    markers = Markers.of((*policies.markers(), TF))
    found: list[Finding] = []
    for raw in yamlio.split_documents(rewrite.text):
        if not markers.found_in(raw.text):
            continue
        parsed = yamlio.parse_document(raw.text, file=rewrite.path, line=raw.line)
        for base, obj in objects(parsed.data):
            for view in policies.registry.views(obj):  # pods whose parts live apart too
                if view.refused:
                    continue
                line, column = yamlio.locate(parsed.node, base + view.path)
                where = {"resource": resource_ref(obj), "file": rewrite.path,
                         "line": raw.line + line + 1, "column": column + 1}
                found.extend(t.finding(**where) for t in webhook_traps(
                    view.template, str(obj.get("kind", "")), resources=policies.gpus))
    return found

