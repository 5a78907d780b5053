"""``tfpolicy plan``: the migration in steps, each proved to fit during its rollout (docs/plan.md).

Reads everything first (policies, manifests, inventory, values) so bad input
exits 2 with nothing written; then runs the pure plan, prints it, and with
``--emit-policies DIR`` writes each step's policy file (``01-takeover-1.yaml``
…), the GitOps commit per step. Exit 0 when every step fits, 1 otherwise.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from tfpolicy.commands.options import (
    POLICY_PLAN,
    command,
    fail_on_option,
    format_option,
    inventory_option,
    operator_options,
    paths_argument,
    policy_option,
    report_option,
    resolve_flags,
    steps_option,
)
from tfpolicy.commands.printing import watched_progress, write_report
from tfpolicy.errors import ExitCode
from tfpolicy.files.documents import locating, read_documents
from tfpolicy.files.inputs import Cluster, plan_input, policy_documents, read_inventory
from tfpolicy.files.outdir import write_step_policies
from tfpolicy.findings import Severity
from tfpolicy.plan import (
    Plan,
    parse_ladder,
    run_plan,
)
from tfpolicy.plan.plan_html import Inputs, as_html
from tfpolicy.plan.plan_json import as_json
from tfpolicy.plan.plan_text import as_text
from tfpolicy.records import replace
from tfpolicy.render import visible


@command("plan")
@policy_option(POLICY_PLAN)
@inventory_option(True, "GPU inventory: compact Inventory or `kubectl get gpupool,gpunode,gpu "
                  "-o yaml`.")
@operator_options
@steps_option("The enabledReplicas ladder each stage climbs.")
@format_option(["text", "json", "html"])
@report_option("Write the report to FILE (whole or not at all) instead of stdout.")
@click.option("--rollout", type=click.Choice(["concurrent", "sequential"]), default="concurrent",
              show_default=True,
              help="Roll a step's workloads at once (as a GitOps sync does) or one by one.")
@click.option("--consolidate/--no-consolidate", default=True, show_default=True,
              help="After the last step, drain the nodes that can be emptied.")
@click.option("--emit-policies", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write each step's policy file to DIR.")
@fail_on_option
@paths_argument()
def plan(policies: tuple[str, ...], inventory: str, values: str | None, namespaces: str | None,
         operator: tuple[str, ...], namespace: str | None, steps: str, fmt: str,
         output: str | None, rollout: str, consolidate: bool, emit_policies: str | None,
         fail_on: Severity, paths: tuple[str, ...]) -> int:
    """Read everything, run the pure plan, write the report; the exit code says whether
    every step fits."""
    with _few_collections():
        result = _plan(policies, inventory, values, namespaces, operator, namespace, steps, fmt,
                       output, rollout, consolidate, emit_policies, paths)
    failed = not result.fits or (fail_on <= Severity.WARNING and _warns(result))
    return ExitCode.FINDINGS if failed else ExitCode.OK


def _warns(result: Plan) -> bool:
    reports = (result.start, *result.steps)
    return bool(result.summary.not_migrated) or any(r.warnings for r in reports)


@contextmanager
def _few_collections() -> Iterator[None]:
    """Run the cyclic garbage collector rarely: a fleet's plan makes millions of small,
    short-lived objects (copies of templates, pod records) that hold no cycles, and each
    collection walks every parsed manifest again (docs/speed.md, "Figures behind the
    code")."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _plan(policies: tuple[str, ...], inventory: str, values: str | None, namespaces: str | None,
          operator: tuple[str, ...], namespace: str | None, steps: str, fmt: str,
          output: str | None, rollout: str, consolidate: bool, emit_policies: str | None,
          paths: tuple[str, ...]) -> Plan:
    ladder = parse_ladder(steps)
    tell = watched_progress("plan")
    if tell is not None:
        tell("reading")
    decided = resolve_flags(policies, namespace, operator)
    cluster = Cluster(values, namespaces, decided.operator, decided.namespace)
    chosen = policy_documents(decided.policies, decided.base)
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    given = plan_input(docs, chosen, read_inventory(inventory), cluster, ladder)
    with locating(kept):
        result = run_plan(replace(given, concurrent=rollout == "concurrent",
                                  consolidate=consolidate, progress=tell))
    if tell is not None:
        sys.stderr.write("\r\033[K")  # clear the progress line before the report
    if emit_policies is not None:
        write_step_policies(Path(emit_policies), list(chosen.documents), ladder)
    shown = Inputs(chosen.shown, inventory, values or "", cluster.operator, paths, steps)
    report = as_html(result, shown) if fmt == "html" else _RENDER[fmt](result)
    if fmt == "text":  # names from the manifests, shown as every text report shows them
        report = visible(report, lines=True)
    write_report(report, output, "plan", elsewhere="another -o FILE")
    return result


_RENDER: dict[str, Callable[[Plan], str]] = {"text": as_text, "json": as_json, "html": as_html}
