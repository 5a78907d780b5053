"""Each pod's samples over the window summarised (mean, max or p95), each side's pods
aggregated, and each side's curve for the chart (docs/gates.md, "How a gate is judged")."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from tfpolicy.gates.answers import Series
from tfpolicy.gates.records import Points, Window

PodSamples = dict[str, list[tuple[int, float]]]  # "namespace/pod" → (time, value)


def summarise(values: Sequence[float], how: str) -> float:
    """``mean``, ``max``, or ``p95`` (nearest rank: the smallest value at or above 95 % of
    the samples, so a p95 is always a value that was measured)."""
    if how == "max":
        return max(values)
    if how == "p95":
        ordered = sorted(values)
        return ordered[math.ceil(0.95 * len(ordered)) - 1]
    return mean(values)


def samples_of(series: Iterable[Series], namespace: str, pods: Iterable[str],
               window: Window) -> PodSamples:
    """The samples of ``pods`` (names in ``namespace``) inside ``window``; several series
    of one pod (a query that kept another label) are pooled."""
    wanted = set(pods)
    found: PodSamples = defaultdict(list)
    for one in series:
        if one.label("namespace") != namespace or one.label("pod") not in wanted:
            continue
        found[f"{namespace}/{one.label('pod')}"].extend(
            p for p in one.points if window.start <= p[0] <= window.end)
    return {pod: sorted(points) for pod, points in found.items() if points}


def per_pod(samples: PodSamples, how: str) -> dict[str, float]:
    return {pod: summarise([v for _, v in points], how) for pod, points in samples.items()}


def mean(values: Iterable[float]) -> float:
    """The mean, kept between the least and the greatest value as the exact mean is:
    the division's rounding could put three equal values' mean just below them."""
    listed = list(values)
    return min(max(math.fsum(listed) / len(listed), min(listed)), max(listed))


def count(samples: PodSamples) -> int:
    return sum(len(points) for points in samples.values())


def curve(samples: PodSamples, window: Window) -> Points:
    """The side's pods' mean at each step, timed from the window's start (the chart)."""
    at: dict[int, list[float]] = defaultdict(list)
    for points in samples.values():
        for when, value in points:
            at[when - window.start].append(value)
    return tuple((when, round(mean(values), 9)) for when, values in sorted(at.items()))
