"""What ``fix`` and ``check`` share: run the engine over files, in memory, writing nothing."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import partial

import click

from tfpolicy import yamlio
from tfpolicy.commands import cohorts
from tfpolicy.commands.manifest import not_kubernetes
from tfpolicy.commands.options import Run, named
from tfpolicy.commands.printing import none_found
from tfpolicy.commands.progress import progress
from tfpolicy.commands.scope import Scope, Unscoped, chart_template
from tfpolicy.edits import Edit, format_path
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import STDIN, Seen, manifest_files, read_seen
from tfpolicy.findings import Finding, Severity
from tfpolicy.hosts.hook import hook_files
from tfpolicy.records import Record, replace
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.engine import Change, objects, resource_ref
from tfpolicy.rewrite.pipeline import FileResult, Markers, Options, transform
from tfpolicy.stages.common import TF

BOM = b"\xef\xbb\xbf"


class Rewrite(Record):
    path: str
    original: str
    text: str
    changed: bool
    bom: bool
    seen: Seen  # what ``fix`` checks is still there before it replaces the file


class _Outcome(Record):
    """One named file, as a worker hands it back: rewritten, or skipped and why."""

    rewrite: Rewrite | None = None
    result: FileResult | None = None
    skipped: str = ""  # the reason, said under --explain
    unscoped: bool = False  # no config governs it


def rewrite_files(run: Run, paths: tuple[str, ...], *, keep_original: bool = False,
                  keep_unchanged: bool = True, keep_changes: bool = True,
                  each: Callable[[Rewrite], Rewrite | None] | None = None,
                  ) -> tuple[list[Rewrite], list[Finding], list[Change]]:
    """Every file's new text; any bad input raises before anything could be written.

    The original text is kept only when asked (``check --diff``): ``fix`` holds
    every changed file in memory until all passed, and need not hold it twice;
    nor the text of a file it leaves alone (``keep_unchanged=False``: empty),
    nor the changes, whose edits only ``check`` reports (``keep_changes=False``).
    A file that no config governs, a Helm chart template, and a file that holds
    no Kubernetes object are skipped (said under ``--explain``). Batches of
    files go through worker processes (``rewrite.parallel``), taken in order;
    ``each`` sees every rewrite as it is taken (``fix`` stages its write then),
    and what it returns is kept (None: nothing).
    """
    rewrites, findings = [], []
    changes: list[Change] = []
    unscoped = 0
    run, total, batches = _prepared(run, paths)
    shown = progress(total)
    work = partial(_files, run, os.getcwd(), keep_original, keep_unchanged, keep_changes)
    for batch in parallel.ordered(work, batches, run.jobs,
                                  shared=yamlio.load_rewriter, in_worker=yamlio.silence_process):
        for path, outcome in batch:
            shown.step(path)
            unscoped += outcome.unscoped
            if outcome.skipped:
                skipped(run.options, path, outcome.skipped)
            if outcome.rewrite is None or outcome.result is None:
                continue
            kept = each(outcome.rewrite) if each else outcome.rewrite
            if kept is not None:
                rewrites.append(kept)
            findings.extend(outcome.result.findings)
            changes.extend(outcome.result.changes)
    shown.close()
    if total and unscoped == total and not run.skip_unconfigured:
        raise TfpolicyError("no policy given: use -p POLICY or a .tfpolicy.yaml "
                            "(none governs the files named)")
    return rewrites, findings, changes


def _prepared(run: Run, paths: tuple[str, ...]) -> tuple[Run, int, Iterator[list[str]]]:
    """The run with a canary rung's order over all each config governs
    (``commands.cohorts``), how many files ``paths`` name (folders walked; a hook's
    configs bring in theirs), and runs of them (``_batches``)."""
    files = list(manifest_files(named(hook_files(named(paths)) if run.hook else paths)))
    if STDIN in files:
        raise TfpolicyError("fix and check work on files; use `tfpolicy apply -` for stdin")
    if not run.hook:
        none_found(files, paths)
    run = cohorts.ordered(run, files)
    total, batches = _batches(files, run.jobs)
    return run, total, batches


def _batches(files: list[str], jobs: int) -> tuple[int, Iterator[list[str]]]:
    """How many ``files`` there are, and runs of them (``parallel.runs``)."""
    return len(files), parallel.runs(files, jobs)


def _files(run: Run, cwd: str, keep_original: bool, keep_unchanged: bool, keep_changes: bool,
           paths: list[str]) -> list[tuple[str, _Outcome]]:
    return [(path, _file(run, cwd, path, keep_original, keep_unchanged, keep_changes))
            for path in paths]


def _file(run: Run, cwd: str, path: str, keep_original: bool, keep_unchanged: bool,
          keep_changes: bool) -> _Outcome:
    """What governs ``path``, and its new text; a chart template is skipped."""
    chart = chart_template(path) if _may_be_in_templates(path, cwd) else ""
    if chart:
        return _Outcome(skipped=chart)
    scope = run.scope(path)
    if isinstance(scope, Unscoped):
        return _Outcome(skipped=scope.reason, unscoped=True)
    outcome = _rewrite(path, scope, keep_original, keep_unchanged)
    if outcome.result is not None and not keep_changes:
        return replace(outcome, result=replace(outcome.result, changes=[]))
    return outcome


def _may_be_in_templates(path: str, cwd: str) -> bool:
    """Whether a folder of ``path``, made absolute (from ``cwd``, the working directory) as
    ``chart_template`` makes it, may be named ``templates``: a substring test that spares
    most of thousands of files the path objects and the ``Chart.yaml`` lookups (not
    normalised: ``templates/..`` too)."""
    return "templates" in os.path.join(cwd, path)


def _rewrite(path: str, scope: Scope, keep_original: bool, keep_unchanged: bool) -> _Outcome:
    data, seen = read_seen(path)
    try:
        original = yamlio.decode(data, path)
        result = transform(original, scope.policies, path, scope.options)
    except TfpolicyError:
        # Only on the error path, so the common case costs nothing: is it a manifest at all?
        reason = not_kubernetes(data, path)
        if not reason:
            raise
        return _Outcome(skipped=reason)
    kept = original if keep_original else ""
    text = result.text if result.changed or keep_unchanged else ""
    rewrite = Rewrite(path, kept, text, result.changed, data.startswith(BOM), seen)
    return _Outcome(rewrite, replace(result, text=""))


def skipped(options: Options, path: str, reason: str) -> None:
    if options.explain:
        click.echo(f"tfpolicy: skipped {path}: {reason}", err=True)


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
    """Webhook traps (reference §9) in what ``fix`` would leave, located at each template.

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

