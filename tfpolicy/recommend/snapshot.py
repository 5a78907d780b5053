"""The offline metrics file: the three range-query answers and the window they cover.

JSON, so that a pull request can carry it and a reviewer re-run the
recommendation without a Prometheus::

    {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MetricsSnapshot",
     "end": 1767225600, "window": "7d", "step": "5m",
     "answers": {"activity": {...}, "utilization": {...}, "framebuffer": {...}}}

``tfpolicy recommend --prometheus URL --save-metrics FILE`` writes one. The
``cache`` answer (pre-allocating servers' own KV-cache gauges) is optional: it is
written only when it holds a series, so a file without it reads as before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.recommend.queries import seconds

KEYS = ("activity", "utilization", "framebuffer")
OPTIONAL = ("cache",)
EMPTY = {"status": "success", "data": {"resultType": "matrix", "result": []}}


@dataclass(frozen=True, slots=True)
class Snapshot:
    end: float
    window: str
    step: str
    answers: Mapping[str, Any]


def loads(text: str, file: str) -> Snapshot:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TfpolicyError(f"not JSON: {exc.msg}", file=file, line=exc.lineno,
                            column=exc.colno) from None
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
