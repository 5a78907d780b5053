"""One run of ``promote``: where the repository stands, what verify says of its rung, and
the rung written (docs/promote.md).

Three calls, so that the command says each part as it happens: ``judge``
reads everything, verifies the rung (and the one before when it must) and
decides; ``write_rung`` puts the new rung into ``.tfpolicy.yaml`` and runs
``fix`` over the manifests; ``record_rung`` checks the manifests again and
commits (or writes a patch) and the summary. Nothing here prints: the
command does. A refusal raises ``RefusedError``, with nothing changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tfpolicy import gitops, yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.cluster import has_rollouts, live_snapshot, read_snapshots, snapshot_source
from tfpolicy.files.documents import located, read_documents
from tfpolicy.files.gate_metrics import GateSource, with_gates
from tfpolicy.files.in_place import Fixed, fix_files
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.files.install import install_file
from tfpolicy.files.project import find_config, lookup
from tfpolicy.files.runner import BOM, Ran, rewrite_files
from tfpolicy.files.scopes import Run, configured_run
from tfpolicy.files.sources import builtin_policies
from tfpolicy.findings import Finding
from tfpolicy.plan import DEFAULT_LADDER, PlanInput, StepReport, plan_steps, run_plan
from tfpolicy.policy.project_config import Given, ProjectConfig
from tfpolicy.promote import git
from tfpolicy.promote.config_edit import set_policy, set_rung
from tfpolicy.promote.messages import Change, commit_message, summary
from tfpolicy.promote.preallocation import traps
from tfpolicy.promote.rungs import (
    ROLLBACK,
    WHOLE_CARDS,
    Position,
    RefusedError,
    climbing,
    ladder_top,
    position,
    rolled_back,
    target_refs,
)
from tfpolicy.promote.soak import parse_time, ready_ages, unsoaked
from tfpolicy.promote.verdict import Decision, Evidence, Outcome, promotion_verdict
from tfpolicy.records import Record, replace
from tfpolicy.verify import Report, Snapshot, Verdict, verify
from tfpolicy.verify.clock import wall_clock
from tfpolicy.verify.expect import step_templates_of


class Request(Record):
    """What the command was asked, its operator configuration decided."""

    path: str
    inventory: str
    cluster: Cluster
    snapshots: tuple[str, ...]
    live: bool
    context: str | None
    commit: bool
    patch: str | None
    soak: int
    summary: str | None
    rollback: bool
    gates: GateSource  # the configuration's gates and where their answers come from
    hooks: bool = False  # run the repository's commit hooks (promote --run-hooks)


class Judged(Record):
    """Where the repository stands and what to do: the verdict and its evidence."""

    request: Request
    root: Path
    config: ProjectConfig
    at: Position
    report: Report  # verify, for the rung the configuration names
    decision: Decision
    planned: StepReport | None  # the plan's step for the next rung (advance only)
    checked: Ran  # check's run over the manifests, before anything
    whole: StepReport | None = None  # the plan's step 04, whole cards (advance to a share)

    @property
    def change(self) -> Change | None:
        """The rung to write: the next on advance, the rollback rung on stop; else none."""
        outcome, at, reasons = self.decision.outcome, self.at, self.decision.reasons
        if outcome is Outcome.ADVANCE:
            return Change(at.name, at.next_name, False, reasons, self.planned, self.whole)
        if outcome is Outcome.STOP and self.request.rollback:
            return Change(at.name, at.rollback_name, True, reasons, None)
        return None

    @property
    def unchanged(self) -> str:
        """What is said when no rung is written."""
        if self.decision.outcome is Outcome.STOP:
            return "promote: --no-rollback: nothing changed"
        if self.decision.outcome is Outcome.DONE:
            return "promote: the migration is done; nothing changed"
        return "promote: nothing changed; run promote again after the rollout"


def judge(request: Request) -> Judged:
    """The repository, clean and at a rung; verify of that rung; the decision."""
    root, config, at, checked = _repository(request)
    given, snapshot, wall, source = _inputs(request, config, at)
    at = ladder_top(len(plan_steps(given.policies, given.ladder)), at)
    since = parse_time(git.last_change(root, config.path))
    report = verify(given, at.step, snapshot, source, wall)
    taken = _taken(report)
    same = _same_pods(given, at)
    report = with_gates(request.gates, report, snapshot, taken, request.soak,
                        None if same else since)
    previous = (None if report.cluster_verdict is Verdict.READY
                else _previous(given, config, at, snapshot, source))
    ages = ready_ages(report, snapshot, taken)
    known = [age for age in ages.values() if age is not None]
    decision = promotion_verdict(Evidence(at, report, previous, taken, since,
                               tuple(unsoaked(ages, request.soak)), request.soak,
                               min(known, default=None), same,
                               _sync(root, config.path, request.path, snapshot)))
    planned, whole = (_planned(given, at.step + 1) if decision.outcome is Outcome.ADVANCE
                      else (None, None))
    if whole is not None:
        _refuse_starved(given, config, at.step + 1)
    return Judged(request, root, config, at, report, decision, planned, checked, whole)


def _sync(root: Path, config: Path, path: str, snapshot: Snapshot) -> gitops.Judgement | None:
    """What Argo CD or Flux says of the commit that set the rung (docs/hosts.md)."""
    commit = git.last_commit(root, config)
    if not commit:
        return None
    folder = Path(path).resolve().relative_to(root.resolve()).as_posix()
    repo = gitops.Repository(folder, git.remote_urls(root))
    return gitops.sync_of(snapshot.objects, repo, commit,
                          lambda revision: git.holds(root, commit, revision))


def write_rung(judged: Judged, change: Change,
               kept_aside: Callable[[list[Finding], str], None]) -> Fixed:
    """The new rung into the configuration, as it is written (CRLF line ends and a byte
    order mark stay), then ``fix`` over the manifests under it (``kept_aside`` as
    ``fix_files`` takes it, with the run's format)."""
    path = judged.config.path
    data = path.read_bytes()
    text = yamlio.decode(data, str(path))
    index = judged.at.index
    text = (set_rung(text, str(path), change.after) if index is None
            else set_policy(text, str(path), index, change.after))
    bom = BOM if data.startswith(BOM) else b""
    install_file(path, bom + text.encode("utf-8"), os.stat(path).st_mode & 0o777)
    run = _checking()
    return fix_files(run, (judged.request.path,), lambda kept: kept_aside(kept, run.fmt))


def record_rung(judged: Judged, change: Change) -> tuple[str, Ran]:
    """The rung committed, or left in the working tree and written as a patch; the
    summary for a pull request. Refused should ``check`` still find a change after
    ``fix``: another program wrote a manifest meanwhile, and nothing is committed."""
    request, root = judged.request, judged.root
    left = _would_change(request.path)
    if left.rewrites:
        raise TfpolicyError(f"after fix, `tfpolicy check` would still change "
                            f"{left.rewrites[0].path}: the change is left uncommitted in the "
                            "working tree")
    stat = git.stat(root)
    if request.commit:
        made = git.commit(root, commit_message(change, judged.report), request.hooks)
        done = f"promote: committed {made}"
    else:
        assert request.patch is not None
        install_file(Path(request.patch), git.diff(root).encode("utf-8"), 0o644)
        done = f"promote: the change is left uncommitted, and written to {request.patch}"
    if request.summary is not None:
        install_file(Path(request.summary),
                     summary(change, judged.report, stat).encode("utf-8"), 0o644)
    return f"{done}: {judged.config.path.name} names {change.after}", left


def _repository(request: Request) -> tuple[Path, ProjectConfig, Position, Ran]:
    """The repository, its configuration and rung; refused unless clean and at the rung,
    and unless the manifests are what ``fix`` makes of the rung: else someone edited them
    by hand, and promote's commit would carry (or undo) that edit unseen."""
    folder = Path(request.path)
    root = git.top(folder)
    config = find_config(folder)
    if config is None:
        raise RefusedError(f"no .tfpolicy.yaml governs {request.path}: it names the rung")
    git.refuse_dirty(root)
    at = position(config.policies, config.rung)
    checked = _would_change(request.path)
    changed = [r.path for r in checked.rewrites]
    if changed:
        raise RefusedError(f"`tfpolicy check` would change {', '.join(changed[:5])}"
                           f"{' …' if len(changed) > 5 else ''}: the manifests are not what "
                           "the configuration's rung makes of them (edited by hand?); run "
                           "`tfpolicy fix`, review and commit, then promote")
    return root, config, at, checked


def _inputs(request: Request, config: ProjectConfig,
            at: Position) -> tuple[PlanInput, Snapshot, str, str]:
    """The plan's input (the rung's policy in place of its name), and the snapshot."""
    chosen = policy_documents(_refs(config, target_refs(config.policies, at)))
    if at.index is not None and len(climbing(chosen.documents)) > 1:
        raise RefusedError("besides the rung, the configuration names policies that climb a "
                           f"ladder ({', '.join(climbing(chosen.documents))}): promote climbs "
                           "one; to climb a rightsize policy after takeover, name it with "
                           "rung: (docs/promote.md)")
    docs = read_documents((request.path,))
    snapshot, wall = _snapshot(request, has_rollouts(docs))
    given = plan_input(docs, chosen, read_inventory(request.inventory), request.cluster,
                       DEFAULT_LADDER, chart_pool=True)
    return given, snapshot, wall, snapshot_source(request.snapshots, request.live,
                                                  request.context)


def _refs(config: ProjectConfig, refs: tuple[str, ...]) -> tuple[str, ...]:
    """Policy files as the configuration means them: relative to its folder."""
    builtin = set(builtin_policies())
    return tuple(ref if ref in builtin else str(config.base / ref) for ref in refs)


def _checking() -> Run:
    """The run ``check`` and ``fix`` would make in the working directory, with its
    configuration as it is now."""
    return configured_run(lookup(Path.cwd()).config, Given(), explain=False)


def _would_change(path: str) -> Ran:
    """``check``'s run over the manifests under the configuration as it is now; the
    files it would change are the rewrites it keeps."""
    ran = rewrite_files(_checking(), (path,))
    return replace(ran, rewrites=[r for r in ran.rewrites if r.changed])


def _snapshot(request: Request, rollouts: bool) -> tuple[Snapshot, str]:
    """The snapshot, and with --live the wall clock when kubectl answered ('' for files)."""
    if request.live:
        return live_snapshot(request.context, rollouts), wall_clock()
    return read_snapshots(request.snapshots), ""


def _taken(report: Report) -> datetime:
    """The snapshot's time: the latest its objects carry, bounded (verify.clock); with
    --live and no time in the objects, the wall clock."""
    taken = parse_time(report.origin.latest)
    if taken is None:
        raise RefusedError("the snapshot carries no time (no creation, condition or event "
                           "time): promote cannot tell how long the pods have been ready")
    return taken


def _previous(given: PlanInput, config: ProjectConfig, at: Position, snapshot: Snapshot,
              source: str) -> Report:
    """Verify for the rung before: at step 01, the manifests before any takeover."""
    if at.step > 1:
        return verify(given, at.step - 1, snapshot, source)
    if at.index is None:
        return verify(replace(given, policies=rolled_back(given.policies)), None, snapshot,
                      source)
    refs = tuple(ROLLBACK if i == at.index else r for i, r in enumerate(config.policies))
    before = policy_documents(_refs(config, refs))
    return verify(replace(given, policies=before.documents), None, snapshot, source)


def _same_pods(given: PlanInput, at: Position) -> bool:
    """The rung writes every workload's pod template as the rung before does: a sync of
    its commit changes no pod, so no snapshot can be newer for it."""
    if at.step < 2:
        return False  # the rung before step 01 is the manifests as written: never the same
    return step_templates_of(given, at.step) == step_templates_of(given, at.step - 1)


def _planned(given: PlanInput, number: int) -> tuple[StepReport, StepReport | None]:
    """The plan's step for the next rung, and for a rightsize rung the plan's step 04 (the
    whole cards its savings are counted from); it must fit, or promote refuses."""
    steps = run_plan(replace(given, consolidate=False)).steps
    step = steps[number - 1]
    if not step.fits:
        first = step.unschedulable[0] if step.unschedulable else None
        why = f": {first.pod}: {first.message}" if first else ""
        raise RefusedError(f"the plan's step {step.number:02d} {step.name} does not fit "
                           f"({step.status.value}){why}; run `tfpolicy plan` for the detail")
    return step, (steps[WHOLE_CARDS - 1] if number > WHOLE_CARDS else None)


def _refuse_starved(given: PlanInput, config: ProjectConfig, number: int) -> None:
    """A rightsize rung that would starve a pre-allocating server is refused, naming the
    setting's line (``promote.preallocation``), unless ``acceptPreallocation`` names it."""
    found = traps(given, number, config.accept_preallocation)
    if not found:
        return
    first = found[0]
    doc = given.documents[first.doc]
    place = located(TfpolicyError(""), doc.file, doc.index, first.path, {})
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    raise RefusedError(f"step {number:02d} would starve a server that pre-allocates GPU "
                       f"memory: {str(place).rstrip(': ')}: {first.workload}: {first.message}"
                       f"{more}; change the setting, or accept it in {config.path.name} "
                       f"(acceptPreallocation: [{first.handle}])")
