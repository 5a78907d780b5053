"""TensorFusion's percentile recommender, per resource (docs/recommend.md, "The recommender").

Upstream NexusGPU/tensor-fusion ``internal/autoscaler/recommender/percentile_recommender.go``:
lower/target/upper estimates are the histogram percentiles × (1 + margin),
truncated to integers; the limit is the upper estimate; the request is the
lower one for QoS low/medium, the target for high, the upper for critical;
floors 1 TFLOPS and 1Gi; each of request and limit clamped to
[original × min ratio, original × max ratio] unless the original is 0; the
compute limit never falls below the original compute limit.
"""

from __future__ import annotations

from tfpolicy.recommend.histogram import TFLOPS, VRAM_BYTES, Buckets, percentiles
from tfpolicy.records import Record

GIB = 1 << 30


class Percentiles(Record):
    lower: float
    target: float
    upper: float


# The code's defaults, which differ from the CRD's comment (NexusGPU/tensor-fusion
# api/v1/schedulingconfigtemplate_types.go).
COMPUTE_PERCENTILES = Percentiles(0.5, 0.95, 0.99)
VRAM_PERCENTILES = Percentiles(0.5, 0.98, 0.99)
MARGIN = 0.15


class Rule(Record):
    """How one resource is recommended: its histogram, percentiles, floor and clamp ratios."""

    buckets: Buckets
    percentiles: Percentiles
    floor: int
    min_ratio: float
    max_ratio: float
    keep_limit: bool  # compute: the limit never falls below the original limit


class Estimate(Record):
    lower: int
    target: int
    upper: int


class Pair(Record):
    request: int
    limit: int


def estimate(rule: Rule, weighted: list[tuple[float, float]], margin: float) -> Estimate:
    """The three estimates with the margin added, truncated as ``resource.NewQuantity`` does."""
    wanted = (rule.percentiles.lower, rule.percentiles.target, rule.percentiles.upper)
    low, target, up = (int(v * (1 + margin)) for v in percentiles(rule.buckets, weighted, wanted))
    return Estimate(low, target, up)


def choose(rule: Rule, found: Estimate, qos: str, original: Pair | None) -> Pair:
    """Request by QoS, limit = upper; floors, then the clamps around a non-zero original."""
    request = {"high": found.target, "critical": found.upper}.get(qos, found.lower)
    pair = Pair(max(request, rule.floor), max(found.upper, rule.floor))
    if original is None:
        return pair
    limit = _clamp(pair.limit, original.limit, rule)
    if rule.keep_limit and original.limit > 0:
        limit = max(limit, original.limit)
    return Pair(_clamp(pair.request, original.request, rule), limit)


def _clamp(value: int, original: int, rule: Rule) -> int:
    if original <= 0:
        return value
    low, high = int(original * rule.min_ratio), int(original * rule.max_ratio)
    return min(max(value, low), high)


def rules(target: float | None) -> tuple[Rule, Rule]:
    """The compute (TFLOPS) and VRAM (bytes) rules; ``target`` overrides both target percentiles."""
    compute, vram = COMPUTE_PERCENTILES, VRAM_PERCENTILES
    if target is not None:
        compute = Percentiles(compute.lower, target, max(compute.upper, target))
        vram = Percentiles(vram.lower, target, max(vram.upper, target))
    return (Rule(TFLOPS, compute, 1, 0.1, 10.0, True),
            Rule(VRAM_BYTES, vram, GIB, 0.2, 5.0, False))
