"""``tfpolicy promote``: the migration ladder as a closed loop in git (docs/promote.md).

Reads the rung ``.tfpolicy.yaml`` names, runs ``verify`` for it against the
cluster, and on ready (and soaked) writes the next rung into the
configuration, runs ``fix`` and commits (or writes a patch); on stop, the
rollback rung the same way; on wait, nothing. One rung per run; a dirty
working tree or manifests ``check`` would change are refused.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from tfpolicy import yamlio
from tfpolicy.commands.fix import fix
from tfpolicy.commands.options import command, operator_options, resolve
from tfpolicy.commands.rewrite import BOM, rewrite_files
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.cluster import has_rollouts, live_snapshot, read_snapshots, snapshot_source
from tfpolicy.files.documents import locating, read_documents
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.files.install import install_file
from tfpolicy.files.project import find_config
from tfpolicy.files.sources import builtin_policies
from tfpolicy.plan import (
    DEFAULT_LADDER,
    PlanInput,
    StepReport,
    run_plan,
)
from tfpolicy.policy.config import Given, ProjectConfig, configure
from tfpolicy.promote import git
from tfpolicy.promote.config_edit import set_policy
from tfpolicy.promote.decide import Decision, Evidence, Outcome, decide
from tfpolicy.promote.rungs import ROLLBACK, Position, RefusedError, climbing, position, target_refs
from tfpolicy.promote.soak import parse_duration, parse_time, ready_ages, unsoaked
from tfpolicy.promote.text import Change, commit_message, summary
from tfpolicy.records import Record, replace
from tfpolicy.verify import Report, Snapshot, Verdict, verify
from tfpolicy.verify.render import as_text

EXIT_CODES = {Outcome.ADVANCE: ExitCode.OK, Outcome.DONE: ExitCode.DONE,
              Outcome.WAIT: ExitCode.WAIT, Outcome.STOP: ExitCode.FINDINGS}
# A kubeconfig context name, as kubectl is given it: no option, no space, no control byte.
_CONTEXT = re.compile(r"^[A-Za-z0-9_.:@/+=][A-Za-z0-9_.:@/+=-]{0,252}$")


class Request(Record):
    path: str
    inventory: str
    values: str | None
    namespaces: str | None
    operator: tuple[str, ...]
    namespace: str
    snapshots: tuple[str, ...]
    live: bool
    context: str | None
    commit: bool
    patch: str | None
    soak: int
    summary: str | None
    rollback: bool


@command("promote")
@click.option("--inventory", required=True, type=click.Path(dir_okay=False),
              help="GPU inventory before the migration, as `tfpolicy plan` takes it.")
@operator_options
@click.option("--cluster", "snapshots", multiple=True, metavar="SNAPSHOT",
              help="`kubectl get pods,replicasets,events,gpus,gpunodes,gpupools -A -o yaml` "
                   "output (repeatable, - for stdin).")
@click.option("--live", is_flag=True, help="Run `kubectl get` for the snapshot (as verify).")
@click.option("--context", default=None, help="The kubeconfig context for --live.")
@click.option("--commit", "commit", is_flag=True, help="Commit the new rung (one commit).")
@click.option("--patch", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Leave the new rung uncommitted and write it to FILE as `git diff`.")
@click.option("--min-soak", "min_soak", default="10m", show_default=True, metavar="DURATION",
              help="How long every TensorFusion pod must have been ready (10m, 1h30m, 0).")
@click.option("--summary", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write a Markdown summary for a pull request to FILE.")
@click.option("--no-rollback", "no_rollback", is_flag=True,
              help="On stop, change nothing (only the exit code says stop).")
@click.argument("path", required=False, default=".",
                type=click.Path(exists=True, file_okay=False))
def promote(inventory: str, values: str | None, namespaces: str | None,
            operator: tuple[str, ...], namespace: str | None, snapshots: tuple[str, ...],
            live: bool,
            context: str | None, commit: bool, patch: str | None, min_soak: str,
            summary: str | None, no_rollback: bool, path: str) -> int:
    """One rung per run: verify the rung, decide, and write the next rung or the
    rollback rung (docs/promote.md)."""
    _check_options(snapshots, live, context, commit, patch)
    decided = configure(find_config(Path(path)), Given(namespace=namespace, operator=operator))
    given = Request(path, inventory, values, namespaces, decided.operator, decided.namespace,
                    snapshots, live, context, commit, patch, parse_duration(min_soak), summary,
                    not no_rollback)
    with locating({}):  # an object defined twice at its line, as plan and verify say it
        return _promote(given)


def _check_options(snapshots: tuple[str, ...], live: bool, context: str | None, commit: bool,
                   patch: str | None) -> None:
    if live == bool(snapshots):
        raise TfpolicyError("give the cluster either as --cluster SNAPSHOT… or as --live")
    if context is not None and not live:
        raise TfpolicyError("--context goes with --live")
    if context is not None and not _CONTEXT.match(context):
        raise TfpolicyError("--context: not a kubeconfig context name (letters, digits and "
                            "._:@/+=-, not starting with -)")
    if commit == (patch is not None):
        raise TfpolicyError("say how to write a new rung: --commit or --patch FILE")


def _promote(request: Request) -> int:
    root, config, at = _repository(request)
    given, snapshot, taken, source = _inputs(request, config, at)
    report = verify(given, at.step, snapshot, source)
    previous = (None if report.verdict is Verdict.READY
                else _previous(given, config, at, snapshot, source))
    ages = ready_ages(report, snapshot, taken)
    known = [age for age in ages.values() if age is not None]
    decision = decide(Evidence(at, report, previous, taken,
                               parse_time(git.last_change(root, config.path)),
                               tuple(unsoaked(ages, request.soak)), request.soak,
                               min(known, default=None)))
    planned = _planned(given, at.step + 1) if decision.outcome is Outcome.ADVANCE else None
    _say(at, decision)
    sys.stdout.write(as_text(report))
    sys.stdout.flush()  # the evidence before fix's own lines
    click.echo(_act(request, decision, at, config, root, report, planned))
    return EXIT_CODES[decision.outcome]


def _repository(request: Request) -> tuple[Path, ProjectConfig, Position]:
    """The repository, its configuration and rung; refused unless clean and at the rung."""
    folder = Path(request.path)
    root = git.top(folder)
    config = find_config(folder)
    if config is None:
        raise RefusedError(f"no .tfpolicy.yaml governs {request.path}: it names the rung")
    git.refuse_dirty(root)
    at = position(config.policies)
    _refuse_hand_edits(request.path)
    return root, config, at


def _inputs(request: Request, config: ProjectConfig,
            at: Position) -> tuple[PlanInput, Snapshot, datetime, str]:
    """The plan's input (the rung's policy in place of its name), and the snapshot."""
    chosen = policy_documents(_refs(config, target_refs(config.policies, at)))
    if len(climbing(chosen.documents)) > 1:
        raise RefusedError("besides the rung, the configuration names policies that climb a "
                           f"ladder ({', '.join(climbing(chosen.documents))}): promote climbs one")
    docs = read_documents((request.path,))
    snapshot, taken = _snapshot(request, has_rollouts(docs))
    cluster = Cluster(request.values, request.namespaces, request.operator, request.namespace)
    given = plan_input(docs, chosen, read_inventory(request.inventory), cluster, DEFAULT_LADDER,
                       chart_pool=True)
    source = snapshot_source(request.snapshots, request.live, request.context)
    return given, snapshot, taken, source


def _refs(config: ProjectConfig, refs: tuple[str, ...]) -> tuple[str, ...]:
    """Policy files as the configuration means them: relative to its folder."""
    builtin = set(builtin_policies())
    return tuple(ref if ref in builtin else str(config.base / ref) for ref in refs)


def _would_change(path: str) -> list[str]:
    """The manifest files ``check`` would change under the configuration as it is now."""
    rewrites, _, _ = rewrite_files(resolve((), None, None, False), (path,))
    return [r.path for r in rewrites if r.changed]


def _refuse_hand_edits(path: str) -> None:
    """The manifests must be what ``fix`` makes of the rung: else someone edited them by hand,
    and promote's commit would carry (or undo) that edit unseen."""
    changed = _would_change(path)
    if changed:
        raise RefusedError(f"`tfpolicy check` would change {', '.join(changed[:5])}"
                      f"{' …' if len(changed) > 5 else ''}: the manifests are not what the "
                      "configuration's rung makes of them (edited by hand?); run `tfpolicy "
                      "fix`, review and commit, then promote")


def _snapshot(request: Request, rollouts: bool) -> tuple[Snapshot, datetime]:
    """The snapshot and its time: the latest its objects carry; with --live and no time in
    the objects, the clock when kubectl answered."""
    if request.live:
        snapshot = live_snapshot(request.context, rollouts)
        clock: datetime | None = datetime.now(UTC).replace(microsecond=0)
    else:
        snapshot, clock = read_snapshots(request.snapshots), None
    taken = parse_time(snapshot.latest) or clock
    if taken is None:
        raise RefusedError("the snapshot carries no time (no creation, condition or event time): "
                      "promote cannot tell how long the pods have been ready")
    return snapshot, taken


def _previous(given: PlanInput, config: ProjectConfig, at: Position, snapshot: Snapshot,
              source: str) -> Report:
    """Verify for the rung before: at step 01, the manifests before any takeover."""
    if at.step > 1:
        return verify(given, at.step - 1, snapshot, source)
    refs = tuple(ROLLBACK if i == at.index else r for i, r in enumerate(config.policies))
    before = policy_documents(_refs(config, refs))
    return verify(replace(given, policies=before.documents), None, snapshot, source)


def _say(at: Position, decision: Decision) -> None:
    click.echo(f"promote: {at.name} (step {at.step:02d}): {decision.outcome.value}")
    for reason in decision.reasons:
        click.echo(f"  {reason}")


def _act(request: Request, decision: Decision, at: Position, config: ProjectConfig,
         root: Path, report: Report, planned: StepReport | None) -> str:
    if decision.outcome is Outcome.ADVANCE:
        change = Change(at.name, at.next_name, False, decision.reasons, planned)
        return _write(request, change, at, config, root, report)
    if decision.outcome is Outcome.STOP and request.rollback:
        change = Change(at.name, at.rollback_name, True, decision.reasons, None)
        return _write(request, change, at, config, root, report)
    if decision.outcome is Outcome.STOP:
        return "promote: --no-rollback: nothing changed"
    if decision.outcome is Outcome.DONE:
        return "promote: the migration is done; nothing changed"
    return "promote: nothing changed; run promote again after the rollout"


def _planned(given: PlanInput, number: int) -> StepReport:
    """The plan's step for the next rung; it must fit, or promote refuses."""
    steps = run_plan(replace(given, consolidate=False)).steps
    step = steps[number - 1]
    if not step.fits:
        first = step.unschedulable[0] if step.unschedulable else None
        why = f": {first.pod}: {first.message}" if first else ""
        raise RefusedError(f"the plan's step {step.number:02d} {step.name} does not fit "
                      f"({step.status.value}){why}; run `tfpolicy plan` for the detail")
    return step


def _write(request: Request, change: Change, at: Position, config: ProjectConfig,
           root: Path, report: Report) -> str:
    """The new rung into the configuration, ``fix`` over the manifests, then git."""
    data = config.path.read_bytes()  # as it is: CRLF line ends and a byte order mark stay
    text = set_policy(yamlio.decode(data, str(config.path)), str(config.path), at.index,
                      change.after)
    bom = BOM if data.startswith(BOM) else b""
    install_file(config.path, bom + text.encode("utf-8"), os.stat(config.path).st_mode & 0o777)
    click.get_current_context().invoke(fix, policies=(), namespace=None, fmt=None,
                                       explain=False, paths=(request.path,))
    left = _would_change(request.path)
    if left:  # another program wrote a manifest meanwhile: nothing is committed
        raise TfpolicyError(f"after fix, `tfpolicy check` would still change {left[0]}: "
                            "the change is left uncommitted in the working tree")
    stat = git.stat(root)
    if request.commit:
        done = f"promote: committed {git.commit(root, commit_message(change, report))}"
    else:
        assert request.patch is not None
        install_file(Path(request.patch), git.diff(root).encode("utf-8"), 0o644)
        done = f"promote: the change is left uncommitted, and written to {request.patch}"
    if request.summary is not None:
        install_file(Path(request.summary), summary(change, report, stat).encode("utf-8"),
                     0o644)
    return f"{done}: {config.path.name} names {change.after}"
