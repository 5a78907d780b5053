"""``tfpolicy verify``: the live cluster against one step of the plan (docs/verify.md).

Reads everything first (policies, manifests, inventory, the cluster
snapshot) so bad input exits 2; then compares, per workload and per GPU,
what the step should have produced with what the cluster shows. ``--live``
runs ``kubectl get`` itself (no other client). Exit 0 ready, 75 wait, 1
stop, 2 unusable input (docs/verify.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import click

from tfpolicy.commands.options import (
    POLICY_PLAN,
    cluster_options,
    command,
    format_option,
    gate_options,
    gate_source,
    inventory_option,
    operator_options,
    paths_argument,
    policy_option,
    report_option,
    resolve_flags,
    soak_option,
    steps_option,
)
from tfpolicy.commands.printing import write_report
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.cluster import (
    has_rollouts,
    live_snapshot,
    read_snapshots,
    snapshot_fleet,
    snapshot_source,
)
from tfpolicy.files.documents import locating, read_documents
from tfpolicy.files.gate_metrics import with_gates, with_snapshot_gates
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.plan import parse_ladder
from tfpolicy.promote.rungs import named_rung, target_refs
from tfpolicy.promote.soak import parse_duration, parse_time
from tfpolicy.verify import Report, Verdict, verify
from tfpolicy.verify.clock import wall_clock
from tfpolicy.verify.report_html import as_html
from tfpolicy.verify.report_render import as_json, as_text

EXIT_CODES = {Verdict.READY: ExitCode.OK, Verdict.WAIT: ExitCode.WAIT,
              Verdict.STOP: ExitCode.FINDINGS}


@command("verify")
@policy_option(POLICY_PLAN)
@inventory_option(False, "GPU inventory before the migration; default: the snapshot's GPU "
                  "objects.")
@operator_options
@steps_option("The enabledReplicas ladder, as given to `tfpolicy plan`.")
@click.option("--step", type=click.IntRange(min=1), default=None,
              help="The plan step just rolled out [default: the rung .tfpolicy.yaml or -p "
                   "names (takeover-1 is step 1 …), else the last step].")
@cluster_options("`kubectl get pods,replicasets,gpus,gpunodes,gpupools -A -o yaml` output "
                 "(repeatable, - for stdin).", "Run `kubectl get` for the snapshot.")
@format_option(["text", "json", "html"])
@report_option("Write the report to FILE instead of stdout (the HTML page, typically).")
@gate_options
@soak_option("The shortest window the gates are measured over: from the last TensorFusion "
             "pod ready to the snapshot (10m, 1h30m).")
@paths_argument()
def verify_command(policies: tuple[str, ...], inventory: str | None, values: str | None,
                   namespaces: str | None, operator: tuple[str, ...], namespace: str | None,
                   steps: str,
                   step: int | None, snapshots: tuple[str, ...], live: bool,
                   context: str | None, fmt: str, output: str | None,
                   prometheus: str | None, metrics: str | None, save_metrics: str | None,
                   min_soak: str, paths: tuple[str, ...]) -> int:
    """Read everything, snapshot the cluster, compare with the plan's step; the exit code
    is the verdict."""
    ladder = parse_ladder(steps)
    _check_sources(snapshots, live, context, paths)
    soak = parse_duration(min_soak)
    decided = resolve_flags(policies, namespace, operator)
    gates = gate_source(decided.config, prometheus, metrics, save_metrics)
    cluster = Cluster(values, namespaces, decided.operator, decided.namespace)
    refs, step = _rung(decided.policies, decided.rung, step)
    chosen = policy_documents(refs, decided.base)
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    snapshot = live_snapshot(context, has_rollouts(docs)) if live else read_snapshots(snapshots)
    wall = wall_clock() if live else ""
    fleet = read_inventory(inventory) if inventory else snapshot_fleet(snapshot)
    given = plan_input(docs, chosen, fleet, cluster, ladder, chart_pool=True)
    with locating(kept):
        report = verify(given, step, snapshot, snapshot_source(snapshots, live, context), wall)
    report = (with_gates(gates, report, snapshot, _taken(report.origin.latest), soak)
              if gates.active else with_snapshot_gates(gates, report, snapshot))
    write_report(_RENDER[fmt](report), output, "verify")
    return EXIT_CODES[report.verdict]


_RENDER: dict[str, Callable[[Report], str]] = {"text": as_text, "json": as_json,
                                              "html": as_html}


def _taken(latest: str) -> datetime:
    """When the snapshot was taken: its latest object time, bounded (with --live, by the
    wall clock, which stands in when no object carries a time)."""
    taken = parse_time(latest)
    if taken is None:
        raise TfpolicyError("the snapshot carries no time (no creation, condition or event "
                            "time): the gates cannot place their window")
    return taken


def _rung(refs: tuple[str, ...], rung: str | None,
          step: int | None) -> tuple[tuple[str, ...], int | None]:
    """A rung of the ladder among the policies is a step of ``takeover``: verified as the
    plan's step (as promote does), and the step asked when ``--step`` is not given."""
    at = named_rung(refs, rung)
    if at is None:
        return refs, step
    return target_refs(refs, at), at.step if step is None else step


def _check_sources(files: tuple[str, ...], live: bool, context: str | None,
                   paths: tuple[str, ...]) -> None:
    if not paths:
        raise TfpolicyError("name the manifests the step was applied to (files, "
                            "folders, or - for stdin): the step's expectations come from them")
    if live == bool(files):
        raise TfpolicyError("give the cluster either as --cluster SNAPSHOT… or as --live")
    if context is not None and not live:
        raise TfpolicyError("--context goes with --live")
    if "-" in files and ("-" in paths or not paths):
        raise TfpolicyError("stdin can be read once: not both the snapshot and the manifests")
