"""The usage ``recommend`` sizes from: a metrics file (MetricsSnapshot JSON), or the
answers of Prometheus (dcgm-exporter series), which ``--save-metrics`` writes as one.

A metrics file is refused before it is read when it is larger than a snapshot
may be; a window or step given with a file must be the file's own.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import read_text
from tfpolicy.recommend.prometheus import fetch
from tfpolicy.recommend.queries import queries, seconds
from tfpolicy.recommend.snapshot import MAX_BYTES, Snapshot, dumps, loads, too_big


def read_metrics(file: str, window: str | None, step: str | None) -> Snapshot:
    """The metrics in ``file`` (``-``: stdin), their window and step as given, if given."""
    if file != "-" and os.path.isfile(file) and os.path.getsize(file) > MAX_BYTES:
        raise TfpolicyError(too_big(os.path.getsize(file)), file=file)  # before reading it
    snap = loads(read_text(file), file)
    for name, given, held in (("--window", window, snap.window), ("--step", step, snap.step)):
        if given is not None and seconds(given) != seconds(held):
            raise TfpolicyError(f"{name} {given}: the metrics file covers {held}", file=file)
    return snap


def fetch_metrics(url: str, namespaces: list[str], end: float | None, window: str, step: str,
          timeout: float) -> Snapshot:
    """Prometheus's answers for ``namespaces`` over ``window`` ending at ``end`` (default:
    now), at ``step``; each query within ``timeout`` seconds."""
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


def save_metrics(path: Path, snap: Snapshot) -> None:
    """The answers as a metrics file, atomically: a reader never sees half of one."""
    text = dumps(snap)
    handle, temp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".",
                                    prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(temp, 0o644)  # a metrics file is for review, not a secret (mkstemp makes 0600)
    os.replace(temp, path)
