"""A range query's answer (``/api/v1/query_range``, a matrix) as labelled series.

Refused as a whole, one line, when it is not a success, carries warnings (Prometheus's
sign of partial data: a gate never passes on part of the data) or is not a matrix. A
sample that is NaN or infinite is no measurement (``histogram_quantile`` over a window
without requests answers NaN) and is left out, so it counts as no sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.records import Record


class Series(Record):
    labels: Mapping[str, str]
    points: tuple[tuple[int, float], ...]  # (Unix seconds, value), time ascending

    def label(self, name: str) -> str:
        return self.labels.get(name, "")


def series_of(answer: Any, what: str) -> list[Series]:
    return [_one(item, what) for item in matrix_result(answer, what)]


def matrix_result(answer: Any, what: str) -> list[Any]:
    """The result list of a successful range query's answer, or a one-line error naming
    ``what`` (the gates' and ``recommend``'s answers alike)."""
    if not isinstance(answer, Mapping) or answer.get("status") != "success":
        raise TfpolicyError(f"{what}: Prometheus answered an error: {_reason(answer)}")
    if answer.get("warnings"):
        raise TfpolicyError(f"{what}: Prometheus answered with warnings (partial data): "
                            f"{_short(answer['warnings'])}")
    data = answer.get("data")
    if not isinstance(data, Mapping) or data.get("resultType") != "matrix":
        raise TfpolicyError(f"{what}: expected a range-query matrix from Prometheus")
    result = data.get("result")
    if not isinstance(result, list):
        raise TfpolicyError(f"{what}: the answer has no result list")
    return result


def _one(item: Any, what: str) -> Series:
    labels = item.get("metric") if isinstance(item, Mapping) else None
    values = item.get("values") if isinstance(item, Mapping) else None
    if not isinstance(labels, Mapping) or not isinstance(values, list):
        raise TfpolicyError(f"{what}: a series without metric labels or values")
    points = []
    for value in values:
        try:
            when, number = float(value[0]), float(value[1])
        except (TypeError, ValueError, IndexError, KeyError):
            raise TfpolicyError(f"{what}: a sample that is not [time, \"value\"]") from None
        if math.isfinite(when) and math.isfinite(number):
            points.append((int(when), number))
    return Series({str(k): str(v) for k, v in labels.items()}, tuple(sorted(points)))


def _reason(answer: Any) -> str:
    if isinstance(answer, Mapping):
        kind, error = answer.get("errorType"), answer.get("error")
        if isinstance(error, str):
            return _short(f"{kind}: {error}" if isinstance(kind, str) else error)
    return "not a Prometheus API answer"


def _short(value: Any) -> str:
    try:
        text = " ".join(str(value).split())
    except RecursionError:  # a value nested deeper than repr goes
        text = "(nested too deep to show)"
    return text if len(text) <= 160 else text[:157] + "..."
