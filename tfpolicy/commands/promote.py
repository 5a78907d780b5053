"""``tfpolicy promote``: the migration ladder as a closed loop in git (docs/promote.md).

Reads the rung ``.tfpolicy.yaml`` names, runs ``verify`` for it against the
cluster, and on ready (and soaked) writes the next rung into the
configuration, runs ``fix`` and commits (or writes a patch); on stop, the
rollback rung the same way; on wait, nothing. One rung per run; a dirty
working tree or manifests ``check`` would change are refused.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from tfpolicy.commands.options import (
    cluster_options,
    command,
    gate_options,
    gate_source,
    inventory_option,
    operator_options,
    soak_option,
)
from tfpolicy.commands.printing import emit_findings, none_found, tell_fixed
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.documents import locating
from tfpolicy.files.inputs import Cluster
from tfpolicy.files.project import find_config
from tfpolicy.policy.project_config import Given, resolve_config
from tfpolicy.promote.climb import Judged, Request, judge, record_rung, write_rung
from tfpolicy.promote.soak import parse_duration
from tfpolicy.promote.verdict import Outcome
from tfpolicy.verify.report_render import as_text

EXIT_CODES = {Outcome.ADVANCE: ExitCode.OK, Outcome.DONE: ExitCode.DONE,
              Outcome.WAIT: ExitCode.WAIT, Outcome.STOP: ExitCode.FINDINGS}
# A kubeconfig context name, as kubectl is given it: no option, no space, no control byte.
_CONTEXT = re.compile(r"^[A-Za-z0-9_.:@/+=][A-Za-z0-9_.:@/+=-]{0,252}$")


@command("promote")
@inventory_option(True, "GPU inventory before the migration, as `tfpolicy plan` takes it.")
@operator_options
@cluster_options("`kubectl get pods,replicasets,events,gpus,gpunodes,gpupools -A -o yaml` "
                 "output (repeatable, - for stdin).",
                 "Run `kubectl get` for the snapshot (as verify).")
@click.option("--commit", "commit", is_flag=True, help="Commit the new rung (one commit).")
@click.option("--run-hooks", "run_hooks", is_flag=True,
              help="With --commit: run the repository's commit hooks (core.hooksPath, "
                   ".git/hooks); by default none runs, nor core.fsmonitor (docs/promote.md).")
@click.option("--patch", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Leave the new rung uncommitted and write it to FILE as `git diff`.")
@soak_option("How long every TensorFusion pod must have been ready, and the shortest window "
             "the gates are measured over (10m, 1h30m, 0).")
@gate_options
@click.option("--summary", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write a Markdown summary for a pull request to FILE.")
@click.option("--no-rollback", "no_rollback", is_flag=True,
              help="On stop, change nothing (only the exit code says stop).")
@click.argument("path", required=False, default=".",
                type=click.Path(exists=True, file_okay=False))
def promote(inventory: str, values: str | None, namespaces: str | None,
            operator: tuple[str, ...], namespace: str | None, snapshots: tuple[str, ...],
            live: bool, context: str | None, commit: bool, run_hooks: bool, patch: str | None,
            min_soak: str,
            prometheus: str | None, metrics: str | None, save_metrics: str | None,
            summary: str | None, no_rollback: bool, path: str) -> int:
    """One rung per run: judge, say the verdict and its evidence, then write and record
    the rung, each part said as it is done (docs/promote.md)."""
    _check_options(snapshots, live, context, commit, patch)
    if run_hooks and not commit:
        raise TfpolicyError("--run-hooks goes with --commit")
    config = find_config(Path(path))
    decided = resolve_config(config, Given(namespace=namespace, operator=operator))
    cluster = Cluster(values, namespaces, decided.operator, decided.namespace)
    request = Request(path, inventory, cluster, snapshots, live, context, commit, patch,
                      parse_duration(min_soak), summary, not no_rollback,
                      gate_source(config, prometheus, metrics, save_metrics), run_hooks)
    with locating({}):  # an object defined twice at its line, as plan and verify say it
        judged = judge(request)
    none_found(judged.checked.files, (path,))
    _say(judged)
    change = judged.change
    if change is None:
        click.echo(judged.unchanged)
        return EXIT_CODES[judged.decision.outcome]
    fixed = write_rung(judged, change, lambda kept, fmt: emit_findings(kept, fmt, err=True))
    tell_fixed(fixed, fixed.run, (path,))
    done, checked = record_rung(judged, change)
    none_found(checked.files, (path,))
    click.echo(done)
    return EXIT_CODES[judged.decision.outcome]


def _say(judged: Judged) -> None:
    """The verdict, its reasons, then verify's report: the evidence before fix's lines."""
    at, decision = judged.at, judged.decision
    click.echo(f"promote: {at.name} (step {at.step:02d}): {decision.outcome.value}")
    for reason in decision.reasons:
        click.echo(f"  {reason}")
    sys.stdout.write(as_text(judged.report))
    sys.stdout.flush()


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
