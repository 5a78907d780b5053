"""``tfpolicy recommend``: a ``rightsize`` MigrationPolicy from measured GPU usage
(docs/recommend.md).

Reads everything first (manifests, then the metrics from ``--prometheus`` or
``--metrics``), so that bad input exits 2 with nothing written; the policy
text is parsed back and checked against its schema before it is printed.
Workloads left out are listed in the policy's header comment and on stderr.
``-p`` policies add framework rows and model sizes (``recommend.hints``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tfpolicy import yamlio
from tfpolicy.commands.options import (
    POLICY_SIZES,
    command,
    namespace_option,
    paths_argument,
    policy_option,
    resolve_flags,
)
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.documents import read_documents
from tfpolicy.files.inputs import policy_documents
from tfpolicy.files.metrics import fetch_metrics, read_metrics
from tfpolicy.files.metrics import save_metrics as save_metrics_file
from tfpolicy.policy.schema import validate
from tfpolicy.recommend import hints
from tfpolicy.recommend.core import GpuWorkload, Result, Settings, Usage, recommend
from tfpolicy.recommend.manifests import gpu_workloads
from tfpolicy.recommend.policy import Block, blocks, header
from tfpolicy.recommend.queries import seconds
from tfpolicy.recommend.series import parse_answer
from tfpolicy.recommend.snapshot import (
    KEYS,
    OPTIONAL,
    Snapshot,
)
from tfpolicy.render import visible


@command("recommend")
@click.option("--prometheus", metavar="URL", help="Prometheus base URL (dcgm-exporter series).")
@click.option("--metrics", type=click.Path(dir_okay=False), metavar="FILE",
              help="Offline metrics file (MetricsSnapshot JSON) instead of --prometheus.")
@click.option("--window", default=None, help="History window  [default: 7d]")
@click.option("--resolution", "step", default=None,
              help="Prometheus' query resolution  [default: 5m]")
@click.option("--step", "old_step", default=None, hidden=True)  # the old --resolution
@click.option("--end", type=float, default=None, help="End of the window, Unix seconds "
              "[default: now].")
@click.option("--quantile", type=click.FloatRange(0.01, 0.999), default=None,
              help="Target percentile of both resources (default 0.95 compute, 0.98 VRAM).")
@click.option("--margin", type=click.FloatRange(0.0, 10.0), default=0.15, show_default=True,
              help="Headroom over the need a limit adds (0.15: 15 %).")
@click.option("--qos", type=click.Choice(["low", "medium", "high", "critical"]),
              default="medium", show_default=True, help="QoS of templates that name none.")
@click.option("--min-samples", type=click.IntRange(1), default=60, show_default=True,
              help="Fewest samples a workload's series must hold to be sized.")
@click.option("--timeout", type=click.FloatRange(0.1, 3600), default=30.0, show_default=True,
              help="Seconds per Prometheus query.")
@click.option("--save-metrics", type=click.Path(dir_okay=False), metavar="FILE",
              help="With --prometheus: also write the answers as an offline metrics file.")
@namespace_option(None, "Namespace for manifests that name none [default: namespace: of "
                 ".tfpolicy.yaml, else default].")
@policy_option(POLICY_SIZES)
@paths_argument()
def recommend_cmd(prometheus: str | None, metrics: str | None, window: str | None,
                  step: str | None, old_step: str | None, end: float | None,
                  quantile: float | None, margin: float,
                  qos: str, min_samples: int, timeout: float, save_metrics: str | None,
                  namespace: str | None, policies: tuple[str, ...],
                  paths: tuple[str, ...]) -> int:
    """Sizes from measured usage, printed as a policy only once it reads back as intended
    and passes its schema."""
    if (prometheus is None) == (metrics is None):
        raise TfpolicyError("give exactly one of --prometheus URL and --metrics FILE")
    if save_metrics is not None and prometheus is None:
        raise TfpolicyError("--save-metrics needs --prometheus")
    step = step or old_step
    hinted = [dict(d) for d in policy_documents(policies).documents] if policies else []
    namespace = resolve_flags(policies, namespace).namespace  # the configuration's, as elsewhere
    workloads = gpu_workloads([d.data for d in read_documents(paths)], namespace,
                              hints.frameworks(hinted), hints.sizes(hinted))
    if not workloads:
        raise TfpolicyError("no GPU workload in the manifests")
    snap = (read_metrics(metrics, window, step) if metrics is not None else
            fetch_metrics(str(prometheus), sorted({w.id.namespace for w in workloads}),
                          end, window or "7d", step or "5m", timeout))
    docs, result = _sized(workloads, snap, Settings(seconds(snap.window) or 0, margin,
                                                    quantile, qos, min_samples))
    text = header(result, _settings_line(snap, quantile, margin, qos)) + "".join(
        d.text for d in docs)
    _check(text, [d.data for d in docs])
    if save_metrics is not None:
        save_metrics_file(Path(save_metrics), snap)
    _tell(result)
    sys.stdout.write(text)
    return ExitCode.OK


def _sized(workloads: list[GpuWorkload], snap: Snapshot,
           settings: Settings) -> tuple[list[Block], Result]:
    """The policy blocks of the workloads the usage sizes; none is an error."""
    usage = Usage(*(parse_answer(snap.answers[k], f"{k} answer") for k in (*KEYS, *OPTIONAL)))
    docs, result = blocks(recommend(workloads, usage, settings), [w.id for w in workloads])
    if not docs:
        reasons = "; ".join(f"{w}: {r}" for w, r in sorted(result.left_out)[:3])
        raise TfpolicyError(f"no workload could be sized ({reasons})")
    return docs, result


def _tell(result: Result) -> None:
    """On stderr: the workloads left out and why, the notes, and each framework setting
    that fits, as a finding to apply."""
    lines = [f"[warning] {workload}: left out: {' '.join(reason.split())}"
             for workload, reason in sorted(result.left_out)]
    lines += [f"[warning] {' '.join(note.split())}" for note in result.notes]
    lines += [f"[info] {rec.id}: {rec.pool.setting}" for rec in result.recommended
              if rec.pool is not None and rec.pool.setting]
    sys.stderr.write("".join(f"tfpolicy: {visible(line)}\n" for line in lines))


def _settings_line(snap: Snapshot, quantile: float | None, margin: float, qos: str) -> str:
    target = f"target P{quantile * 100:g}" if quantile is not None else \
        "compute P50/P95/P99, VRAM P50/P98/P99"
    return (f"window {snap.window} ending at {snap.end:.0f}, resolution {snap.step}; {target}; "
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
