"""The edge of gates: Prometheus' answers for a rung's gates, or the same answers from a
file, and the report with its gate table (docs/gates.md).

Prometheus is asked through recommend's bounded client (``tfpolicy.recommend.prometheus``:
the query a URL parameter only, http/https only, each answer time- and size-bounded) and
once for the names of the metrics it holds (``/api/v1/label/__name__/values``), so a gate
reading a metric that exists nowhere is a located error with a did-you-mean. Any failure
to reach it, or an error answer, is one line and exit 2: the rung never advances on no
evidence. ``--metrics FILE`` reads a ``GateMetrics`` file ``--save-metrics FILE`` wrote.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.sources import read_text
from tfpolicy.gates import (
    GateConfig,
    Query,
    Series,
    check_metrics,
    judged,
    queries,
    results,
    series_of,
    snapshot_gates,
    soak_window,
)
from tfpolicy.recommend.prometheus import fetch
from tfpolicy.recommend.queries import Query as RangeQuery
from tfpolicy.records import Record, replace
from tfpolicy.verify import Report, Snapshot
from tfpolicy.verify.gate_subjects import last_ready, subjects_of

TIMEOUT = 30.0  # seconds, each request
_NAMES_LIMIT = 64 << 20  # the metric names answer; larger is refused
MAX_BYTES = 256 << 20  # a metrics file, as recommend's
KIND = "GateMetrics"


class GateSource(Record):
    """Where the gates' answers come from, as the command was given it."""

    config: GateConfig
    file: str  # the .tfpolicy.yaml (errors at a gate are located in it)
    prometheus: str | None = None  # --prometheus, else the config's
    metrics: str | None = None  # --metrics FILE
    save: str | None = None  # --save-metrics FILE

    @property
    def active(self) -> bool:
        return self.config.declared or self.prometheus is not None or self.metrics is not None


def with_gates(source: GateSource, report: Report, snapshot: Snapshot, taken: datetime,
               soak: int, started: datetime | None = None) -> Report:
    """``report`` with its gate table (``with_snapshot_gates`` when no gate is in use)."""
    if not source.active:
        return with_snapshot_gates(source, report, snapshot)
    subjects = subjects_of(report, snapshot, int(started.timestamp()) if started else None)
    window = soak_window(last_ready(tuple(judged(subjects)), snapshot), int(taken.timestamp()),
                         soak)
    answers: dict[str, list[Series]] = {}
    if not isinstance(window, str) and judged(subjects):
        names, raw = _answers(source, lambda known: queries(source.config, subjects, window,
                                                            known))
        answers = {key: series_of(answer, f"gate query {_shown(key)}")
                   for key, answer in raw.items()}
        if source.save is not None:
            _save(Path(source.save), names, raw)
    return replace(report, gates=results(source.config, subjects, window, answers))


def with_snapshot_gates(source: GateSource, report: Report, snapshot: Snapshot) -> Report:
    """With no gate declared and no metrics to ask, the built-in gate the snapshot alone
    answers (restarts and OOM kills of the TensorFusion pods) still judges the rung,
    unless switched off: a pod that restarted can be ready again."""
    return replace(report, gates=snapshot_gates(source.config, subjects_of(report, snapshot,
                                                                             None)))


def _answers(source: GateSource, asked: Any) -> tuple[list[str], dict[str, Any]]:
    """The metric names and the answer to each query asked, from the file or Prometheus."""
    if source.metrics is not None:
        names, held = _read(source.metrics)
        check_metrics(source.config, frozenset(names), source.file)
        wanted: list[Query] = asked(frozenset(names))
        missing = [q for q in wanted if q.key not in held]
        if missing:
            raise TfpolicyError(f"holds no answer for the gate query {_shown(missing[0].key)}: "
                                "save it again with --save-metrics against this snapshot",
                                file=source.metrics)
        return names, {q.key: held[q.key] for q in wanted}
    url = source.prometheus or source.config.prometheus
    if url is None:
        raise TfpolicyError("gates need answers: give --prometheus URL or --metrics FILE, or "
                            "name prometheus: in .tfpolicy.yaml")
    names = _names(url)
    check_metrics(source.config, frozenset(names), source.file)
    return names, {q.key: fetch(url, _range(q), TIMEOUT) for q in asked(frozenset(names))}


def _range(query: Query) -> RangeQuery:
    w = query.window
    return RangeQuery(f"gate {query.expr[:60]}", query.expr, float(w.start), float(w.end),
                      w.step)


def _names(base: str) -> list[str]:
    parsed = urllib.parse.urlsplit(base)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise TfpolicyError(f"--prometheus: not an http(s) URL: {base}")
    url = base.rstrip("/") + "/api/v1/label/__name__/values"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            body = response.read(_NAMES_LIMIT + 1)
    except urllib.error.HTTPError as exc:
        raise TfpolicyError(f"--prometheus: the metric names: HTTP {exc.code}") from None
    except TimeoutError:
        raise TfpolicyError(f"--prometheus: the metric names timed out after {TIMEOUT:g}s") \
            from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        raise TfpolicyError(f"--prometheus: cannot reach {base}: "
                            f"{getattr(exc, 'reason', exc)}") from None
    return _names_of(body)


def _names_of(body: bytes) -> list[str]:
    if len(body) > _NAMES_LIMIT:
        raise TfpolicyError("--prometheus: the metric names answer is larger than 64 MiB")
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise TfpolicyError("--prometheus: the metric names answer is not JSON") from None
    data = answer.get("data") if isinstance(answer, Mapping) else None
    if answer.get("status") != "success" or not isinstance(data, list):
        raise TfpolicyError("--prometheus: the metric names answer is not a success")
    return sorted({str(n) for n in data})


def _read(file: str) -> tuple[list[str], dict[str, Any]]:
    if file != "-" and os.path.isfile(file) and os.path.getsize(file) > MAX_BYTES:
        raise TfpolicyError(f"larger than {MAX_BYTES >> 20} MiB: not a {KIND} file", file=file)
    try:
        data = json.loads(read_text(file))
    except (ValueError, RecursionError) as exc:
        raise TfpolicyError(f"not JSON: {exc}", file=file) from None
    if not isinstance(data, Mapping) or data.get("kind") != KIND:
        raise TfpolicyError(f"not a {KIND} file (kind: {KIND})", file=file)
    names, answers = data.get("names"), data.get("answers")
    if not isinstance(names, list) or not isinstance(answers, list):
        raise TfpolicyError("names and answers: lists are required", file=file)
    held = {}
    for item in answers:
        if not isinstance(item, Mapping) or not all(k in item for k in _FIELDS):
            raise TfpolicyError(f"answers: each holds {', '.join(_FIELDS)}", file=file)
        held[f"{item['start']}:{item['end']}:{item['step']}:{item['query']}"] = item["answer"]
    return [str(n) for n in names], held


_FIELDS = ("query", "start", "end", "step", "answer")


def _save(path: Path, names: list[str], raw: Mapping[str, Any]) -> None:
    """Sorted keys and entries: the same answers, the same bytes."""
    entries = []
    for key in sorted(raw):
        start, end, step, expr = key.split(":", 3)
        entries.append({"query": expr, "start": int(start), "end": int(end),
                        "step": int(step), "answer": raw[key]})
    text = json.dumps({"apiVersion": "tfpolicy.dev/v1alpha1", "kind": KIND, "names": names,
                       "answers": entries}, sort_keys=True, separators=(",", ":")) + "\n"
    install_file(path, text.encode("utf-8"), 0o644)


def _shown(key: str) -> str:
    start, end, step, expr = key.split(":", 3)
    short = expr if len(expr) <= 80 else expr[:77] + "..."
    return f"{short!r} over {start}..{end} at {step}s"
