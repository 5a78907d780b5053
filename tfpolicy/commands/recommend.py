"""``tfpolicy recommend``: a ``rightsize`` MigrationPolicy from measured GPU usage (issue 13).

Reads everything first (manifests, then the metrics from ``--prometheus`` or
``--metrics``), so that bad input exits 2 with nothing written; the policy
text is parsed back and checked against its schema before it is printed.
Workloads left out are listed in the policy's header comment and on stderr.
``-p`` policies add framework rows and model sizes (``recommend.hints``).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from pathlib import Path

import click

from tfpolicy import yamlio
from tfpolicy.commands.options import command
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.documents import read_documents
from tfpolicy.files.sources import load_policy_set, policy_source, read_text
from tfpolicy.policy.schema import validate
from tfpolicy.recommend import hints
from tfpolicy.recommend.core import Settings, Usage, recommend
from tfpolicy.recommend.manifests import gpu_workloads
from tfpolicy.recommend.policy import blocks, header
from tfpolicy.recommend.prometheus import fetch
from tfpolicy.recommend.queries import queries, seconds
from tfpolicy.recommend.series import parse_answer
from tfpolicy.recommend.snapshot import (
    KEYS,
    MAX_BYTES,
    OPTIONAL,
    Snapshot,
    dumps,
    loads,
    too_big,
)


@command("recommend")
@click.option("--prometheus", metavar="URL", help="Prometheus base URL (dcgm-exporter series).")
@click.option("--metrics", type=click.Path(dir_okay=False), metavar="FILE",
              help="Offline metrics file (MetricsSnapshot JSON) instead of --prometheus.")
@click.option("--window", default=None, help="History window  [default: 7d]")
@click.option("--step", default=None, help="Query resolution  [default: 5m]")
@click.option("--end", type=float, default=None, help="End of the window, Unix seconds "
              "[default: now].")
@click.option("--quantile", type=click.FloatRange(0.01, 0.999), default=None,
              help="Target percentile of both resources (default 0.95 compute, 0.98 VRAM).")
@click.option("--margin", type=click.FloatRange(0.0, 10.0), default=0.15, show_default=True)
@click.option("--qos", type=click.Choice(["low", "medium", "high", "critical"]),
              default="medium", show_default=True, help="QoS of templates that name none.")
@click.option("--min-samples", type=click.IntRange(1), default=60, show_default=True)
@click.option("--timeout", type=click.FloatRange(0.1, 3600), default=30.0, show_default=True,
              help="Seconds per Prometheus query.")
@click.option("--save-metrics", type=click.Path(dir_okay=False), metavar="FILE",
              help="With --prometheus: also write the answers as an offline metrics file.")
@click.option("-n", "--namespace", default="default", show_default=True,
              help="Namespace for manifests that name none.")
@click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
              help="Policies whose spec.frameworks and per-workload modelWeights / "
                   "workingMemory size servers that pre-allocate a pool.")
@click.argument("paths", nargs=-1, type=click.Path())
def recommend_cmd(prometheus: str | None, metrics: str | None, window: str | None,
                  step: str | None, end: float | None, quantile: float | None, margin: float,
                  qos: str, min_samples: int, timeout: float, save_metrics: str | None,
                  namespace: str, policies: tuple[str, ...], paths: tuple[str, ...]) -> int:
    """Sizes from measured usage, printed as a policy only once it reads back as intended
    and passes its schema."""
    if (prometheus is None) == (metrics is None):
        raise TfpolicyError("give exactly one of --prometheus URL and --metrics FILE")
    if save_metrics is not None and prometheus is None:
        raise TfpolicyError("--save-metrics needs --prometheus")
    hinted = _policies(policies)
    workloads = gpu_workloads([d.data for d in read_documents(paths)], namespace,
                              hints.frameworks(hinted), hints.sizes(hinted))
    if not workloads:
        raise TfpolicyError("no GPU workload in the manifests")
    snap = (_offline(metrics, window, step) if metrics is not None else
            _live(str(prometheus), sorted({w.id.namespace for w in workloads}),
                  end, window or "7d", step or "5m", timeout))
    usage = Usage(*(parse_answer(snap.answers[k], f"{k} answer") for k in (*KEYS, *OPTIONAL)))
    span = seconds(snap.window) or 0
    result = recommend(workloads, usage, Settings(span, margin, quantile, qos, min_samples))
    docs, result = blocks(result, [w.id for w in workloads])
    if not docs:
        reasons = "; ".join(f"{w}: {r}" for w, r in sorted(result.left_out)[:3])
        raise TfpolicyError(f"no workload could be sized ({reasons})")
    text = header(result, _settings_line(snap, quantile, margin, qos)) + "".join(
        d.text for d in docs)
    _check(text, [d.data for d in docs])
    if save_metrics is not None:
        _write(Path(save_metrics), dumps(snap))
    for workload, reason in sorted(result.left_out):
        print(f"tfpolicy: [warning] {workload}: left out: {' '.join(reason.split())}",
              file=sys.stderr)
    for note in result.notes:
        print(f"tfpolicy: [warning] {' '.join(note.split())}", file=sys.stderr)
    for rec in result.recommended:  # the framework setting that fits, as a finding to apply
        if rec.pool is not None and rec.pool.setting:
            print(f"tfpolicy: [info] {rec.id}: {rec.pool.setting}", file=sys.stderr)
    sys.stdout.write(text)
    return ExitCode.OK


def _policies(refs: tuple[str, ...]) -> list[dict[str, object]]:
    """The schema-valid documents of ``-p`` (validation raises: exit 2)."""
    if not refs:
        return []
    load_policy_set(list(refs))
    found = []
    for ref in refs:
        file, text = policy_source(ref, Path("."))
        found += [d for d in yamlio.load_all(text, file=file) if isinstance(d, dict)]
    return found


def _offline(file: str, window: str | None, step: str | None) -> Snapshot:
    if file != "-" and os.path.isfile(file) and os.path.getsize(file) > MAX_BYTES:
        raise TfpolicyError(too_big(os.path.getsize(file)), file=file)  # before reading it
    snap = loads(read_text(file), file)
    for name, given, held in (("--window", window, snap.window), ("--step", step, snap.step)):
        if given is not None and seconds(given) != seconds(held):
            raise TfpolicyError(f"{name} {given}: the metrics file covers {held}", file=file)
    return snap


def _live(url: str, namespaces: list[str], end: float | None, window: str, step: str,
          timeout: float) -> Snapshot:
    span, resolution = seconds(window), seconds(step)
    if not span or not resolution:
        raise TfpolicyError("--window and --step take durations such as 7d, 5m, 30s")
    if end is not None and not (math.isfinite(end) and end > 0):
        raise TfpolicyError("--end takes a Unix time in seconds")
    if span // resolution > 11000:  # Prometheus refuses more points per series
        raise TfpolicyError(f"--window {window} at --step {step} exceeds 11000 points a series")
    stop = float(int(time.time())) if end is None else end
    answers = {q.key: fetch(url, q, timeout) for q in queries(namespaces, stop, span, resolution)}
    return Snapshot(stop, window, step, answers)


def _settings_line(snap: Snapshot, quantile: float | None, margin: float, qos: str) -> str:
    target = f"target P{quantile * 100:g}" if quantile is not None else \
        "compute P50/P95/P99, VRAM P50/P98/P99"
    return (f"window {snap.window} ending at {snap.end:.0f}, step {snap.step}; {target}; "
            f"margin {margin:g}; QoS {qos} where the template names none")


def _check(text: str, intended: list[dict[str, object]]) -> None:
    """Never print a policy that reads back as other data or fails its schema."""
    parsed = yamlio.load_all(text, file="<recommendation>")
    if parsed != intended:
        raise TfpolicyError("the policy text would not read back as intended; refused")
    for doc in parsed:
        problems = validate(doc, "policy")
        if problems:
            raise TfpolicyError(f"the recommended policy fails its schema: "
                                f"{problems[0].message} ({problems[0].json_path})")


def _write(path: Path, text: str) -> None:
    """Atomically: a reader never sees half a metrics file."""
    handle, temp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".",
                                    prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(temp, 0o644)  # a metrics file is for review, not a secret (mkstemp makes 0600)
    os.replace(temp, path)
