"""Prometheus query API answers (``/api/v1/query_range``) turned into per-pod samples.

An answer is refused as a whole (exit 2, one line) when it is not a success,
carries warnings (Prometheus's sign of partial data), is not a matrix, or
holds a series without the ``namespace`` and ``pod`` labels dcgm-exporter
puts on every GPU series when it maps pods; a series without ``modelName``
is kept and reported per workload, since TFLOPS cannot be derived from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfpolicy.errors import TfpolicyError


@dataclass(frozen=True, slots=True)
class Series:
    namespace: str
    pod: str
    model: str  # "" when the series has no modelName label
    points: tuple[tuple[float, float], ...]  # (time, value), time ascending


def parse_answer(answer: Any, what: str) -> list[Series]:
    """The series of one query's answer, or a one-line error naming ``what``."""
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
    return [_series(item, what) for item in result]


def _series(item: Any, what: str) -> Series:
    labels = item.get("metric") if isinstance(item, Mapping) else None
    values = item.get("values") if isinstance(item, Mapping) else None
    if not isinstance(labels, Mapping) or not isinstance(values, list):
        raise TfpolicyError(f"{what}: a series without metric labels or values")
    namespace, pod = labels.get("namespace"), labels.get("pod")
    if not isinstance(namespace, str) or not isinstance(pod, str) or not namespace or not pod:
        raise TfpolicyError(f"{what}: a series without the namespace and pod labels "
                            "(run dcgm-exporter with Kubernetes pod mapping)")
    model = labels.get("modelName")
    return Series(namespace, pod, model if isinstance(model, str) else "",
                  tuple(_point(v, what) for v in values))


def _point(value: Any, what: str) -> tuple[float, float]:
    try:
        time, number = float(value[0]), float(value[1])
    except (TypeError, ValueError, IndexError, KeyError):
        raise TfpolicyError(f"{what}: a sample that is not [time, \"value\"]") from None
    if not (math.isfinite(time) and math.isfinite(number)) or number < 0:
        raise TfpolicyError(f"{what}: a sample that is not a finite non-negative number")
    return time, number


def _reason(answer: Any) -> str:
    if isinstance(answer, Mapping):
        kind, error = answer.get("errorType"), answer.get("error")
        if isinstance(error, str):
            return _short(f"{kind}: {error}" if isinstance(kind, str) else error)
    return "not a Prometheus API answer"


def _short(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= 160 else text[:157] + "..."
