"""``tfpolicy plan``: the migration in steps, each proved to fit during its rollout (DESIGN §3–4).

Reads everything first (policies, manifests, inventory, values) so bad input
exits 2 with nothing written; then runs the pure plan, prints it, and with
``--emit-policies DIR`` writes each step's policy file (``01-takeover-1.yaml``
…), the GitOps commit per step. Exit 0 when every step fits, 1 otherwise.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from tfpolicy import yamlio
from tfpolicy.admission.placeholders import PlaceholderError
from tfpolicy.commands.admission import (
    cluster_webhook,
    line_of,
    located,
    operator_options,
    read_documents,
    read_mapping,
)
from tfpolicy.commands.options import command, decide, fail_on_option
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.sources import load_policy_set, policy_source, read_text
from tfpolicy.findings import Severity
from tfpolicy.inventory import load_inventory, settings_from_values
from tfpolicy.plan import (
    DEFAULT_LADDER,
    Plan,
    PlanInput,
    TooManyPods,
    admission_pools,
    model_capacities,
    parse_ladder,
    plan_steps,
    run_plan,
    step_documents,
)
from tfpolicy.plan.html import Inputs, as_html
from tfpolicy.plan.render import as_json
from tfpolicy.plan.text import as_text
from tfpolicy.plan.twice import DefinedTwice
from tfpolicy.policy.schema import validate
from tfpolicy.scheduler import Inventory, SchedulerSettings

_DEFAULT_STEPS = ",".join(str(r) for r in DEFAULT_LADDER)


@command("plan")
@click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
              help="Policy file or built-in name (repeatable); default: .tfpolicy.yaml.")
@click.option("--inventory", required=True, type=click.Path(dir_okay=False),
              help="GPU inventory: compact Inventory or `kubectl get gpupool,gpunode,gpu -o yaml`.")
@operator_options
@click.option("--steps", default=_DEFAULT_STEPS, show_default=True,
              help="The enabledReplicas ladder each stage climbs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the report to FILE (whole or not at all) instead of stdout.")
@click.option("--rollout", type=click.Choice(["concurrent", "sequential"]), default="concurrent",
              show_default=True,
              help="Roll a step's workloads at once (as a GitOps sync does) or one by one.")
@click.option("--consolidate/--no-consolidate", default=True, show_default=True,
              help="After the last step, drain the nodes that can be emptied.")
@click.option("--emit-policies", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write each step's policy file to DIR.")
@fail_on_option
@click.argument("paths", nargs=-1, type=click.Path())
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
    collection walks every parsed manifest again; on the bench fleet that was a tenth of
    the run."""
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
    tell = _progress()
    if tell is not None:
        tell("reading")
    decided = decide(policies, namespace, operator)
    operator, namespace = decided.operator, decided.namespace
    policy_docs, shown = policy_documents(decided.policies, decided.base)
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    fleet = read_inventory(inventory)
    raw = read_mapping(values, "--values")  # once: a pipe (`<(helm get values …)`) reads once
    webhook = cluster_webhook(values, namespaces, docs, operator, namespace,
                              admission_pools(fleet), model_capacities(fleet), raw)
    try:
        result = run_plan(PlanInput(tuple(docs), tuple(policy_docs), fleet, webhook, ladder,
                                    namespace, shown, scheduler_settings(values, raw),
                                    concurrent=rollout == "concurrent",
                                    consolidate=consolidate, progress=tell))
    except TooManyPods as exc:
        doc = exc.document
        raise located(exc, doc.file, doc.index, exc.replicas_path, kept) from None
    except PlaceholderError as exc:
        raise located(exc, exc.file or "", exc.document, exc.path, kept) from None
    except DefinedTwice as exc:
        raise defined_twice(exc, kept) from None
    if tell is not None:
        sys.stderr.write("\r\033[K")  # clear the progress line before the report
    if emit_policies is not None:
        _emit(Path(emit_policies), policy_docs, ladder)
    given = Inputs(shown, inventory, values or "", operator, paths, steps)
    _write(as_html(result, given) if fmt == "html" else _RENDER[fmt](result), output)
    return result


def defined_twice(error: DefinedTwice, kept: Mapping[str, str]) -> TfpolicyError:
    """The error at its second place, naming the first by file and line."""
    where = error.second
    shown = error.shown(lambda p: line_of(p.file, p.index, p.path, kept))
    return located(shown, where.file, where.index, where.path, kept)


_RENDER: dict[str, Callable[[Plan], str]] = {"text": as_text, "json": as_json, "html": as_html}


def _write(report: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(report)
        return
    install_file(Path(output), report.encode(), 0o644, elsewhere="another -o FILE")
    sys.stderr.write(f"plan: report written to {output}\n")


def _progress() -> Callable[[str], None] | None:
    """A one-line progress report on stderr, only when a person watches it."""
    if not sys.stderr.isatty():
        return None

    def tell(what: str) -> None:
        sys.stderr.write(f"\r\033[Kplan: {what}…")
        sys.stderr.flush()

    return tell


def scheduler_settings(values: str | None,
                       raw: Mapping[str, Any] | None = None) -> SchedulerSettings | None:
    """What the chart's values change in scheduling (isolation mode policy, score weights,
    progressive migration); without ``--values`` the inventory's ``spec.scheduler`` holds,
    else the chart's defaults. ``raw``: the values file already read (else it is read)."""
    if values is None:
        return None
    try:
        return settings_from_values(read_mapping(values, "--values") if raw is None else raw)
    except TfpolicyError as exc:
        raise exc.located(values) from None


def policy_documents(refs: tuple[str, ...], base: Path = Path(".")
                     ) -> tuple[list[Mapping[str, Any]], str]:
    """The raw, schema-valid policy documents (validation raises: exit 2); the refs are
    those ``decide`` gave (the flags', else the project config's)."""
    given = list(refs)
    load_policy_set(given, base)
    docs: list[Mapping[str, Any]] = []
    for ref in given:
        file, text = policy_source(ref, base)
        docs.extend(d for d in yamlio.load_all(text, file=file) if isinstance(d, Mapping))
    return docs, ", ".join(given)


def read_inventory(path: str) -> Inventory:
    """An inventory file; a compact one is checked against its schema first."""
    docs = yamlio.load_all(read_text(path), file=path)
    if len(docs) == 1 and isinstance(docs[0], Mapping) and docs[0].get("kind") == "Inventory":
        problems = validate(docs[0], "inventory")
        if problems:
            first = problems[0]
            raise TfpolicyError(f"{first.message} ({first.json_path})", file=path)
    try:
        return load_inventory(docs)
    except TfpolicyError as exc:
        raise exc.located(path) from None


def _emit(folder: Path, docs: list[Mapping[str, Any]], ladder: tuple[int | str, ...]) -> None:
    if folder.exists() and not folder.is_dir():
        raise TfpolicyError("--emit-policies: not a directory", file=str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    for step in plan_steps(docs, ladder):
        header = (f"# tfpolicy plan, step {step.number:02d} ({step.name}): commit this file "
                  "as the migration policy once the previous step is rolled out.\n")
        text = header + yamlio.dump_documents(step_documents(docs, step))
        (folder / f"{step.number:02d}-{step.name}.yaml").write_text(text, encoding="utf-8")
