"""The engine over files, in memory, writing nothing: what ``fix``, ``check``, ``init`` and
``promote`` run. It says nothing either: what it skipped, and why, comes back with what
it rewrote, for the command to tell under ``--explain``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import partial

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files import canary_order
from tfpolicy.files.foreign import not_kubernetes
from tfpolicy.files.governed import Expansion, added_note, hook_files
from tfpolicy.files.listing import manifest_files, named
from tfpolicy.files.progress import progress
from tfpolicy.files.scopes import Run, Scope, Unscoped, chart_template
from tfpolicy.files.sources import STDIN, Seen, read_stat
from tfpolicy.findings import Finding
from tfpolicy.records import Record, replace
from tfpolicy.rewrite import firstpass, parallel
from tfpolicy.rewrite.engine import Change, PolicySet
from tfpolicy.rewrite.pipeline import FileResult, transform

BOM = b"\xef\xbb\xbf"


class Rewrite(Record):
    path: str
    original: str
    text: str
    changed: bool
    bom: bool
    # What ``fix`` checks is still there before it replaces the file; None when unchanged
    # (nothing to replace, so the file is not hashed).
    seen: Seen | None


class Ran(Record):
    """What a run over files gives: the rewrites kept, the findings and the changes of
    every file, the files skipped with the reason (said under ``--explain``), and how
    many files were named (none: the folders named hold no manifest)."""

    rewrites: list[Rewrite]
    findings: list[Finding]
    changes: list[Change]
    skipped: list[tuple[str, str]]
    files: int


class _Outcome(Record):
    """One named file, as a worker hands it back: rewritten, or skipped and why."""

    rewrite: Rewrite | None = None
    result: FileResult | None = None
    skipped: str = ""  # the reason, said under --explain
    unscoped: bool = False  # no config governs it
    unsettled: bool = False  # it may hold what a first pass presumed absent looks for


class Unsettled(Exception):
    """A run that presumed no file holds what the first pass looks for
    (``canary_order.presumed``) met a file that may, or an error, which the pass might
    have met first: nothing of it stands, and its caller runs again with the pass."""


def rewrite_files(run: Run, paths: tuple[str, ...], *, keep_original: bool = False,
                  keep_unchanged: bool = True, keep_changes: bool = True,
                  each: Callable[[Rewrite], Rewrite | None] | None = None,
                  watch: PolicySet | None = None) -> Ran:
    """Every file's new text; any bad input raises before anything could be written.

    The original text is kept only when asked (``check --diff``): ``fix`` holds
    every changed file in memory until all passed, and need not hold it twice;
    nor the text of a file it leaves alone (``keep_unchanged=False``: empty),
    nor the changes, whose edits only ``check`` reports (``keep_changes=False``).
    A file that no config governs, a Helm chart template, and a file that holds
    no Kubernetes object are skipped (``Ran.skipped``). Batches of
    files go through worker processes (``rewrite.parallel``), taken in order;
    ``each`` sees every rewrite as it is taken (``fix`` stages its write then),
    and what it returns is kept (None: nothing).

    ``watch``: ``run`` presumes no file holds what the first pass looks for with
    these policies (``canary_order.presumed``), so that each file is read once; a
    file that may hold some, or any error, raises ``Unsettled``.
    """
    expansion = hook_files(named(paths)) if run.hook else Expansion(named(paths), {})
    try:
        return _rewritten(run, expansion.files, keep_original, keep_unchanged, keep_changes,
                          each, watch)
    except TfpolicyError as exc:
        if watch is not None:
            raise Unsettled from None
        raise added_note(exc, expansion) from None


def _rewritten(run: Run, paths: tuple[str, ...], keep_original: bool, keep_unchanged: bool,
               keep_changes: bool, each: Callable[[Rewrite], Rewrite | None] | None,
               watch: PolicySet | None) -> Ran:
    rewrites, findings = [], []
    changes: list[Change] = []
    skipped: list[tuple[str, str]] = []
    unscoped = 0
    run, total, batches = _prepared(run, paths)
    shown = progress(total, run.quiet)
    work = partial(_files, run, os.getcwd(), keep_original, keep_unchanged, keep_changes, watch)
    for batch in parallel.ordered(work, batches, run.jobs,
                                  shared=yamlio.load_rewriter, in_worker=yamlio.silence_process):
        for path, handed in batch:
            shown.step(path)
            outcome = _left(path) if handed is None else handed
            if outcome.unsettled:
                raise Unsettled(path)
            unscoped += outcome.unscoped
            if outcome.skipped:
                skipped.append((path, outcome.skipped))
            if outcome.rewrite is None or outcome.result is None:
                continue
            kept = each(outcome.rewrite) if each else outcome.rewrite
            if kept is not None:
                rewrites.append(kept)
            findings.extend(outcome.result.findings)
            changes.extend(outcome.result.changes)
    shown.close()
    if total and unscoped == total and not run.skip_unconfigured:
        first, why = skipped[0]  # where the lookup stopped, and why, for the first of them
        raise TfpolicyError("no policy given: use -p POLICY or a .tfpolicy.yaml (none "
                            f"governs the files named; for {first}: {why})")
    return Ran(rewrites, findings, changes, skipped, total)


def _prepared(run: Run, paths: tuple[str, ...]) -> tuple[Run, int, Iterator[list[str]]]:
    """The run with a canary rung's order over all each config governs
    (``files.canary_order``), how many files ``paths`` name (folders walked; a hook's
    configs bring in theirs), and runs of them (``_batches``)."""
    files = list(manifest_files(named(paths))) if paths else []  # a hook: all excluded
    if STDIN in files:
        raise TfpolicyError("fix and check work on files; use `tfpolicy apply -` for stdin")
    run = canary_order.ordered(run, files)
    total, batches = _batches(files, run.jobs)
    return run, total, batches


def _batches(files: list[str], jobs: int) -> tuple[int, Iterator[list[str]]]:
    """How many ``files`` there are, and runs of them (``parallel.runs``)."""
    return len(files), parallel.runs(files, jobs)


def _files(run: Run, cwd: str, keep_original: bool, keep_unchanged: bool, keep_changes: bool,
           watch: PolicySet | None, paths: list[str]) -> list[tuple[str, _Outcome | None]]:
    return [(path, _file(run, cwd, path, keep_original, keep_unchanged, keep_changes, watch))
            for path in paths]


def _file(run: Run, cwd: str, path: str, keep_original: bool, keep_unchanged: bool,
          keep_changes: bool, watch: PolicySet | None) -> _Outcome | None:
    """What governs ``path``, and its new text; a chart template is skipped. None: read and
    left as it was, with nothing to say or keep (``_left``)."""
    chart = chart_template(path) if _may_be_in_templates(path, cwd) else ""
    if chart:
        return _Outcome(skipped=chart)
    scope = run.scope(path)
    if isinstance(scope, Unscoped):
        return _Outcome(skipped=scope.reason, unscoped=True)
    outcome = _rewrite(path, scope, keep_original, keep_unchanged, watch)
    if outcome is not None and outcome.result is not None and not keep_changes:
        return replace(outcome, result=replace(outcome.result, changes=[]))
    return outcome


def _left(path: str) -> _Outcome:
    """A file read and left as it was, with nothing found and no text kept: a worker hands
    back its name alone, not records pickled and unpickled for each of the thousands of
    files ``fix`` leaves alone (docs/speed.md, "fix beside apply")."""
    return _Outcome(Rewrite(path, "", "", False, False, None), FileResult("", False, [], []))


def _may_be_in_templates(path: str, cwd: str) -> bool:
    """Whether a folder of ``path``, made absolute (from ``cwd``, the working directory) as
    ``chart_template`` makes it, may be named ``templates``: a substring test that spares
    most of thousands of files the path objects and the ``Chart.yaml`` lookups (not
    normalised: ``templates/..`` too)."""
    return "templates" in os.path.join(cwd, path)


def _rewrite(path: str, scope: Scope, keep_original: bool, keep_unchanged: bool,
             watch: PolicySet | None) -> _Outcome | None:
    data, info = read_stat(path)
    if watch is not None and firstpass.worth(watch, data):
        return _Outcome(unsettled=True)
    try:
        original = yamlio.decode(data, path)
        result = transform(original, scope.policies, path, scope.options)
    except TfpolicyError:
        # Only on the error path, so the common case costs nothing: is it a manifest at all?
        reason = not_kubernetes(data, path)
        if not reason:
            raise
        return _Outcome(skipped=reason)
    if not (result.changed or result.findings or result.changes or keep_unchanged
            or keep_original):
        return None  # what fix hands back for most files: their names alone (``_left``)
    kept = original if keep_original else ""
    text = result.text if result.changed or keep_unchanged else ""
    seen = Seen.of(info, data) if result.changed else None
    rewrite = Rewrite(path, kept, text, result.changed, data.startswith(BOM), seen)
    return _Outcome(rewrite, replace(result, text=""))

