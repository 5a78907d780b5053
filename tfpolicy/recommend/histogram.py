"""VPA's decaying exponential histogram, the one TensorFusion's percentile recommender keeps.

Facts (docs/recommend.md, "The recommender"; NexusGPU/tensor-fusion
``internal/autoscaler/recommender/percentile_recommender.go``): TFLOPS max 10000,
first bucket 0.1; VRAM max 1e12 bytes, first bucket 1e7; growth 5 %; epsilon 1e-4;
half-life = history period / 2. The bucket arithmetic follows k8s.io/autoscaler
``vertical-pod-autoscaler/pkg/recommender/util/histogram_options.go``
(``FindBucket``, ``GetBucketStart``) and ``histogram.go`` (``Percentile``
returns the *end* of the bucket where the running weight reaches the
threshold). Decay multiplies a sample's weight by 2^((t - ref) / half-life);
the reference cancels out of every percentile, so the newest sample is used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from tfpolicy.records import Record


class Buckets(Record):
    max_value: float
    first_bucket: float
    ratio: float = 1.05
    epsilon: float = 1e-4

    @property
    def count(self) -> int:
        scaled = self.max_value * (self.ratio - 1) / self.first_bucket + 1
        return math.ceil(math.log(scaled) / math.log(self.ratio)) + 1

    def find(self, value: float) -> int:
        if value < self.first_bucket:
            return 0
        scaled = value * (self.ratio - 1) / self.first_bucket + 1
        return min(int(math.log(scaled) / math.log(self.ratio)), self.count - 1)

    def start(self, index: int) -> float:
        if index == 0:
            return 0.0
        return self.first_bucket * (self.ratio ** index - 1) / (self.ratio - 1)


TFLOPS = Buckets(10000.0, 0.1)
VRAM_BYTES = Buckets(1e12, 1e7)


class Sample(Record):
    time: float  # seconds since the epoch
    value: float
    weight: float


def decayed(samples: Iterable[Sample], half_life: float) -> list[tuple[float, float]]:
    """(value, weight) pairs with each weight decayed towards the newest sample's time."""
    listed = list(samples)
    if not listed:
        return []
    newest = max(s.time for s in listed)
    return [(s.value, s.weight * 2.0 ** ((s.time - newest) / half_life)) for s in listed]


def percentiles(buckets: Buckets, weighted: list[tuple[float, float]],
                wanted: tuple[float, ...]) -> tuple[float, ...]:
    """Each wanted percentile of the weighted samples (0.0 for an empty histogram)."""
    weights = [0.0] * buckets.count
    for value, weight in weighted:
        weights[buckets.find(value)] += weight
    total = sum(weights)
    used = [i for i, w in enumerate(weights) if w >= buckets.epsilon]
    if not used:
        return tuple(0.0 for _ in wanted)
    return tuple(_percentile(buckets, weights, used[0], used[-1], p * total) for p in wanted)


def _percentile(buckets: Buckets, weights: list[float], low: int, high: int,
                threshold: float) -> float:
    partial, bucket = 0.0, low
    while bucket < high:
        partial += weights[bucket]
        if partial >= threshold:
            break
        bucket += 1
    if bucket < buckets.count - 1:
        return buckets.start(bucket + 1)
    return buckets.start(bucket)
