"""Prometheus query API answers (``/api/v1/query_range``) turned into per-pod samples.

An answer is refused as a whole (exit 2, one line) when it is not a success,
carries warnings (Prometheus's sign of partial data), is not a matrix, or
holds a series without the ``namespace`` and ``pod`` labels dcgm-exporter
puts on every GPU series when it maps pods; a series without ``modelName``
is kept and reported per workload, since TFLOPS cannot be derived from it.

Samples are held as two arrays of doubles (``Points``), 16 bytes a sample
instead of a tuple of two floats (104) or the decoded JSON list (about 170):
``decode`` converts each series' ``values`` as soon as the JSON decoder has
read it, so no whole-file tree of samples is ever held (docs/recommend.md, "The
offline metrics file", gives the memory measured before and after).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from tfpolicy.errors import TfpolicyError
from tfpolicy.gates.answers import matrix_result
from tfpolicy.records import Record


class Series(Record):
    namespace: str
    pod: str
    model: str  # "" when the series has no modelName label
    points: Sequence[tuple[float, float]]  # (time, value), time ascending


class Points(Sequence[tuple[float, float]]):
    """(time, value) samples in two arrays of doubles; compares equal to a tuple of pairs."""

    __slots__ = ("_times", "_values")

    def __init__(self, times: array[float], values: array[float]) -> None:
        self._times, self._values = times, values

    def __len__(self) -> int:
        return len(self._times)

    def __iter__(self) -> Iterator[tuple[float, float]]:
        return zip(self._times, self._values, strict=True)

    @overload
    def __getitem__(self, index: int) -> tuple[float, float]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[float, float]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        return self._times[index], self._values[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))


def compact(values: list[Any]) -> Points | None:
    """The samples of one series' ``values``, or None when one is not a finite,
    non-negative ``[time, "value"]`` (``parse_answer`` then says which answer)."""
    times, numbers = array("d"), array("d")
    for value in values:
        try:
            time, number = float(value[0]), float(value[1])
        except (TypeError, ValueError, IndexError, KeyError):
            return None
        if not (math.isfinite(time) and math.isfinite(number)) or number < 0:
            return None
        times.append(time)
        numbers.append(number)
    return Points(times, numbers)


def _compacted(pairs: dict[str, Any]) -> dict[str, Any]:
    values = pairs.get("values")
    if isinstance(values, list) and isinstance(pairs.get("metric"), dict):
        points = compact(values)
        if points is not None:
            pairs["values"] = points
    return pairs


_DECODER = json.JSONDecoder(object_hook=_compacted)


def decode(text: str) -> Any:
    """JSON whose series' samples are ``Points`` as soon as each series is read."""
    return _DECODER.decode(text)


def parse_answer(answer: Any, what: str) -> list[Series]:
    """The series of one query's answer, or a one-line error naming ``what``."""
    return [_series(item, what) for item in matrix_result(answer, what)]


def _series(item: Any, what: str) -> Series:
    labels = item.get("metric") if isinstance(item, Mapping) else None
    values = item.get("values") if isinstance(item, Mapping) else None
    if not isinstance(labels, Mapping) or not isinstance(values, list | Points):
        raise TfpolicyError(f"{what}: a series without metric labels or values")
    namespace, pod = labels.get("namespace"), labels.get("pod")
    if not isinstance(namespace, str) or not isinstance(pod, str) or not namespace or not pod:
        raise TfpolicyError(f"{what}: a series without the namespace and pod labels "
                            "(run dcgm-exporter with Kubernetes pod mapping)")
    model = labels.get("modelName")
    points = values if isinstance(values, Points) else compact(values)
    if points is None:
        raise _refused(values, what)
    return Series(namespace, pod, model if isinstance(model, str) else "", points)


def _refused(values: Sequence[Any], what: str) -> TfpolicyError:
    """What is wrong with the first bad sample."""
    for value in values:
        try:
            time, number = float(value[0]), float(value[1])
        except (TypeError, ValueError, IndexError, KeyError):
            return TfpolicyError(f"{what}: a sample that is not [time, \"value\"]")
        if not (math.isfinite(time) and math.isfinite(number)) or number < 0:
            break
    return TfpolicyError(f"{what}: a sample that is not a finite non-negative number")
