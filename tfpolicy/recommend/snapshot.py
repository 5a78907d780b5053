"""The offline metrics file: the three range-query answers and the window they cover.

JSON, so that a pull request can carry it and a reviewer re-run the
recommendation without a Prometheus::

    {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MetricsSnapshot",
     "end": 1767225600, "window": "7d", "step": "5m",
     "answers": {"activity": {...}, "utilization": {...}, "framebuffer": {...}}}

``tfpolicy recommend --prometheus URL --save-metrics FILE`` writes one. The
``cache``, ``generated`` and ``prompted`` answers (pre-allocating servers' own
KV-cache gauges and token counters) are optional: each is written only when it holds
a series, so a file without them reads as before.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.recommend.queries import seconds
from tfpolicy.recommend.series import decode
from tfpolicy.records import Record

MAX_BYTES = 256 << 20  # a week of 5,000 pods at the 5-minute step is about 200 MB
MAX_DEPTH = 32  # a snapshot nests 7 deep; this only locates what the decoder refused

KEYS = ("activity", "utilization", "framebuffer")
OPTIONAL = ("cache", "generated", "prompted")
EMPTY = {"status": "success", "data": {"resultType": "matrix", "result": []}}


class Snapshot(Record):
    end: float
    window: str
    step: str
    answers: Mapping[str, Any]


def loads(text: str, file: str) -> Snapshot:
    if len(text) > MAX_BYTES:
        raise TfpolicyError(too_big(len(text)), file=file)
    try:
        data = decode(text)
    except json.JSONDecodeError as exc:
        raise TfpolicyError(f"not JSON: {exc.msg}", file=file, line=exc.lineno,
                            column=exc.colno) from None
    except RecursionError:
        line, column = _too_deep(text)
        raise TfpolicyError(f"nested deeper than {MAX_DEPTH} levels: not a MetricsSnapshot",
                            file=file, line=line, column=column) from None
    if not isinstance(data, Mapping) or data.get("kind") != "MetricsSnapshot":
        raise TfpolicyError("not a MetricsSnapshot (kind: MetricsSnapshot)", file=file)
    end, window, step = data.get("end"), data.get("window"), data.get("step")
    answers = data.get("answers")
    if not isinstance(end, int | float) or isinstance(end, bool) or not math.isfinite(end):
        raise TfpolicyError("end: a Unix time in seconds is required", file=file)
    for name, value in (("window", window), ("step", step)):
        if not isinstance(value, str) or not seconds(value):
            raise TfpolicyError(f"{name}: a duration such as 7d or 5m is required", file=file)
    if not isinstance(answers, Mapping) or any(k not in answers for k in KEYS):
        raise TfpolicyError(f"answers: {', '.join(KEYS)} are required", file=file)
    return Snapshot(float(end), str(window), str(step),
                    {**{k: EMPTY for k in OPTIONAL}, **answers})


def dumps(snapshot: Snapshot) -> str:
    return json.dumps({"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MetricsSnapshot",
                       "end": snapshot.end, "window": snapshot.window, "step": snapshot.step,
                       "answers": {k: snapshot.answers[k] for k in (*KEYS, *OPTIONAL)
                                   if k in KEYS or _holds(snapshot.answers.get(k))}},
                      separators=(",", ":"), sort_keys=True) + "\n"


def _holds(answer: Any) -> bool:
    """Whether an answer holds a series (only such optional answers are written)."""
    data = answer.get("data") if isinstance(answer, Mapping) else None
    return isinstance(data, Mapping) and bool(data.get("result"))


def too_big(size: int) -> str:
    return (f"the metrics file is {size / (1 << 20):.0f} MiB, above the {MAX_BYTES >> 20} MiB "
            "read: save fewer namespaces or a coarser --step")


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _too_deep(text: str) -> tuple[int, int]:
    """Line and column (1-based) of the bracket that opens level ``MAX_DEPTH + 1``."""
    depth = 0
    for token in _TOKEN.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                start = token.start()
                return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
        elif mark in "]}":
            depth -= 1
    return 1, 1
