"""``tfpolicy verify``: the live cluster against one step of the plan (issue 15).

Reads everything first (policies, manifests, inventory, the cluster
snapshot) so bad input exits 2; then compares, per workload and per GPU,
what the step should have produced with what the cluster shows. ``--live``
runs ``kubectl get`` itself (no other client). Exit 0 ready, 75 wait, 1
stop, 2 unusable input (docs/verify.md).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tfpolicy import yamlio
from tfpolicy.commands.admission import cluster_webhook, operator_options, read_documents
from tfpolicy.commands.options import command, decide
from tfpolicy.commands.plan import (
    defined_twice,
    policy_documents,
    read_inventory,
    scheduler_settings,
)
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.sources import MAX_FILE_BYTES, read_text
from tfpolicy.inventory import load_inventory
from tfpolicy.plan import (
    DEFAULT_LADDER,
    Document,
    PlanInput,
    admission_pools,
    model_capacities,
    parse_ladder,
)
from tfpolicy.plan.twice import DefinedTwice
from tfpolicy.rewrite.engine import objects
from tfpolicy.scheduler import Inventory
from tfpolicy.verify import Report, Snapshot, Verdict, snapshot_of, verify
from tfpolicy.verify.html import as_html
from tfpolicy.verify.render import as_json, as_text

_DEFAULT_STEPS = ",".join(str(r) for r in DEFAULT_LADDER)
# What `--live` asks for: the workloads' side, then the operator's (its CRDs may be absent,
# which kubectl reports as a missing resource type; the group keeps other GPU CRDs out).
WORKLOAD_KINDS = "pods,replicasets,events"
OPERATOR_KINDS = "gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,gpupools.tensor-fusion.ai"
ROLLOUT_KINDS = "rollouts.argoproj.io"  # their stable and canary revisions
_NO_TYPE = "the server doesn't have a resource type"
_KUBECTL_SECONDS = 120
EXIT_CODES = {Verdict.READY: ExitCode.OK, Verdict.WAIT: ExitCode.WAIT,
              Verdict.STOP: ExitCode.FINDINGS}


@command("verify")
@click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
              help="Policy file or built-in name (repeatable); default: .tfpolicy.yaml.")
@click.option("--inventory", type=click.Path(dir_okay=False),
              help="GPU inventory before the migration; default: the snapshot's GPU objects.")
@operator_options
@click.option("--steps", default=_DEFAULT_STEPS, show_default=True,
              help="The enabledReplicas ladder, as given to `tfpolicy plan`.")
@click.option("--step", type=click.IntRange(min=1), default=None,
              help="The plan step just rolled out [default: the last one].")
@click.option("--cluster", "snapshots", multiple=True, metavar="SNAPSHOT",
              help="`kubectl get pods,replicasets,gpus,gpunodes,gpupools -A -o yaml` "
                   "output (repeatable, - for stdin).")
@click.option("--live", is_flag=True, help="Run `kubectl get` for the snapshot.")
@click.option("--context", default=None, help="The kubeconfig context for --live.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the report to FILE instead of stdout (the HTML page, typically).")
@click.argument("paths", nargs=-1, type=click.Path())
def verify_command(policies: tuple[str, ...], inventory: str | None, values: str | None,
                   namespaces: str | None, operator: tuple[str, ...], namespace: str | None,
                   steps: str,
                   step: int | None, snapshots: tuple[str, ...], live: bool,
                   context: str | None, fmt: str, output: str | None,
                   paths: tuple[str, ...]) -> int:
    """Read everything, snapshot the cluster, compare with the plan's step; the exit code
    is the verdict."""
    ladder = parse_ladder(steps)
    _check_sources(snapshots, live, context, paths)
    decided = decide(policies, namespace, operator)
    operator, namespace = decided.operator, decided.namespace
    policy_docs, shown = policy_documents(decided.policies, decided.base)
    kept: dict[str, str] = {}
    docs = read_documents(paths, kept)
    snapshot = live_snapshot(context, has_rollouts(docs)) if live else read_snapshots(snapshots)
    fleet = read_inventory(inventory) if inventory else _fleet(snapshot)
    webhook = cluster_webhook(values, namespaces, docs, operator, namespace,
                              admission_pools(fleet) if fleet.pools else None,
                              model_capacities(fleet))
    given = PlanInput(tuple(docs), tuple(policy_docs), fleet, webhook, ladder, namespace, shown,
                      scheduler_settings(values))
    try:
        report = verify(given, step, snapshot, snapshot_source(snapshots, live, context))
    except DefinedTwice as exc:
        raise defined_twice(exc, kept) from None
    _write(_RENDER[fmt](report), output)
    return EXIT_CODES[report.verdict]


def snapshot_source(files: tuple[str, ...], live: bool, context: str | None) -> str:
    """Where the snapshot came from, as the report names it: with --live and no --context,
    the kubeconfig's current context by name when kubectl tells it."""
    if live and context:
        return f"kubectl --context {context}"
    if live:
        current = _current_context()
        return f"kubectl, its current context ({current})" if current else (
            "kubectl, its current context")
    return ", ".join("<stdin>" if f == "-" else f for f in files)


def _current_context() -> str:
    """``kubectl config current-context``, or "" when it says nothing usable (a name is one
    line, no longer than a Kubernetes name)."""
    program = shutil.which("kubectl")
    if program is None:
        return ""
    try:
        done = subprocess.run([program, "config", "current-context"], capture_output=True,
                              timeout=_KUBECTL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    name = done.stdout.decode("utf-8", "replace").strip()
    usable = done.returncode == 0 and 0 < len(name) <= 253 and name.isprintable()
    return name if usable else ""


_RENDER: dict[str, Callable[[Report], str]] = {"text": as_text, "json": as_json,
                                              "html": as_html}


def _write(report: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(report)
        return
    install_file(Path(output), report.encode(), 0o644)
    sys.stderr.write(f"verify: report written to {output}\n")


def _check_sources(files: tuple[str, ...], live: bool, context: str | None,
                   paths: tuple[str, ...]) -> None:
    if live == bool(files):
        raise TfpolicyError("give the cluster either as --cluster SNAPSHOT… or as --live")
    if context is not None and not live:
        raise TfpolicyError("--context goes with --live")
    if "-" in files and ("-" in paths or not paths):
        raise TfpolicyError("stdin can be read once: not both the snapshot and the manifests")


def has_rollouts(docs: list[Document]) -> bool:
    """Argo's CRD is asked for only when the manifests hold a Rollout."""
    return any(obj.get("kind") == "Rollout" and str(obj.get("apiVersion", "")).startswith(
        "argoproj.io/") for doc in docs for _, obj in objects(doc.data))


def read_snapshots(files: tuple[str, ...]) -> Snapshot:
    """The cluster as the ``kubectl get -o yaml`` files (``-``: stdin) show it."""
    found: list[tuple[str, Any]] = []
    for file in files:
        shown = "<stdin>" if file == "-" else file
        found.extend((shown, doc) for doc in yamlio.load_all(read_text(file), file=shown))
    return snapshot_of(found)


def _fleet(snapshot: Snapshot) -> Inventory:
    """The snapshot's pools, nodes and GPUs; none when the operator is not installed."""
    if not snapshot.operator_installed:
        return Inventory.build([], [])
    try:
        return load_inventory(list(snapshot.operator_objects()))
    except TfpolicyError as exc:
        raise exc.located("--cluster") from None


def live_snapshot(context: str | None, rollouts: bool) -> Snapshot:
    """The cluster as ``kubectl`` shows it now (Argo's Rollouts too when ``rollouts``)."""
    return snapshot_of(_kubectl(context, rollouts))


def _kubectl(context: str | None, rollouts: bool) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for kinds in (WORKLOAD_KINDS, OPERATOR_KINDS, *([ROLLOUT_KINDS] if rollouts else [])):
        text = _run_kubectl(context, kinds)
        shown = f"<kubectl get {kinds}>"
        found.extend((shown, doc) for doc in yamlio.load_all(text, file=shown))
    return found


def _run_kubectl(context: str | None, kinds: str) -> str:
    program = shutil.which("kubectl")
    if program is None:
        raise TfpolicyError("--live: kubectl is not on PATH")
    argv = [program, *(["--context", context] if context else []), "get", kinds, "-A",
            "-o", "yaml"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_KUBECTL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TfpolicyError(f"--live: kubectl get {kinds} did not run: {exc}") from None
    error = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode != 0 and kinds != WORKLOAD_KINDS and _NO_TYPE in error:
        return ""  # the operator's (or Argo's) CRDs are not installed: the report says so
    if done.returncode != 0:
        last = error.splitlines()[-1][:200] if error else "no message"
        raise TfpolicyError(f"--live: kubectl get {kinds} failed ({done.returncode}): {last}")
    if len(done.stdout) > MAX_FILE_BYTES:
        raise TfpolicyError(f"--live: kubectl get {kinds} printed more than "
                            f"{MAX_FILE_BYTES:,} bytes")
    return yamlio.decode(done.stdout, f"<kubectl get {kinds}>")
