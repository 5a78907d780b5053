"""The recommender core against hand-computed values (pure: no Prometheus, no files).

Bucket arithmetic, TFLOPS histogram (first bucket 0.1, growth 5 %):
bucket n starts at 0.1 × (1.05ⁿ − 1) / 0.05 = 2 × (1.05ⁿ − 1), and a value v
falls in bucket ⌊ln(v × 0.05 / 0.1 + 1) / ln 1.05⌋. For v = 10: ln 6 / ln 1.05
= 36.72 → bucket 36, whose end is 2 × (1.05³⁷ − 1) = 2 × 5.08141 = 10.1628.
For v = 100: ln 51 / ln 1.05 = 80.59 → bucket 80, end 2 × (1.05⁸¹ − 1) = 102.079.
"""

from __future__ import annotations

import pytest

from tfpolicy.recommend.histogram import TFLOPS, VRAM_BYTES, Sample, decayed, percentiles
from tfpolicy.recommend.recommender import GIB, Estimate, Pair, choose, estimate, rules

COMPUTE, VRAM = rules(None)


def test_bucket_count_and_edges() -> None:
    # ceil(ln(10000 × 0.05 / 0.1 + 1) / ln 1.05) + 1 = ceil(174.57) + 1
    assert TFLOPS.count == 176
    assert TFLOPS.find(0.05) == 0 and TFLOPS.find(0.1) == 1
    assert TFLOPS.find(10) == 36 and TFLOPS.find(100) == 80
    assert TFLOPS.find(1e9) == 175  # clamped to the last bucket
    assert TFLOPS.start(37) == pytest.approx(10.1628, abs=1e-4)


def test_percentile_is_the_end_of_the_bucket() -> None:
    assert percentiles(TFLOPS, [(10.0, 0.1)], (0.5, 0.99)) == pytest.approx((10.1628, 10.1628),
                                                                            abs=1e-4)


def test_empty_histogram_is_zero() -> None:
    assert percentiles(TFLOPS, [], (0.5,)) == (0.0,)
    assert percentiles(TFLOPS, [(10.0, 1e-5)], (0.5,)) == (0.0,)  # under epsilon 1e-4


def test_threshold_reached_exactly_stops_in_that_bucket() -> None:
    # weights 0.1 and 0.1: P50's threshold 0.1 is reached in 10's bucket
    weighted = [(10.0, 0.1), (100.0, 0.1)]
    assert percentiles(TFLOPS, weighted, (0.5, 0.51)) == pytest.approx((10.1628, 102.079),
                                                                       abs=1e-3)


def test_decay_halves_a_sample_one_half_life_old() -> None:
    samples = [Sample(0.0, 10.0, 0.1), Sample(3600.0, 100.0, 0.1)]
    weighted = decayed(samples, half_life=3600.0)
    assert weighted == [(10.0, pytest.approx(0.05)), (100.0, pytest.approx(0.1))]
    # total 0.15, P50 threshold 0.075 > 0.05: the median moves to 100's bucket
    assert percentiles(TFLOPS, weighted, (0.5,)) == pytest.approx((102.079,), abs=1e-3)


def test_estimates_add_the_margin_and_truncate() -> None:
    weighted = [(10.0, 0.1)] * 50 + [(100.0, 0.1)] * 50
    # P50 → 10.1628 × 1.15 = 11.69 → 11; P95 and P99 → 102.079 × 1.15 = 117.39 → 117
    assert estimate(COMPUTE, weighted, 0.15) == Estimate(11, 117, 117)
    assert estimate(COMPUTE, weighted, 0.0) == Estimate(10, 102, 102)


def test_vram_histogram_uses_bytes_buckets() -> None:
    eight_gib = 8 * GIB
    bucket = VRAM_BYTES.find(eight_gib)
    assert VRAM_BYTES.start(bucket) <= eight_gib < VRAM_BYTES.start(bucket + 1)
    (p98,) = percentiles(VRAM_BYTES, [(float(eight_gib), 1.0)], (0.98,))
    assert p98 == VRAM_BYTES.start(bucket + 1)
    assert p98 / eight_gib < 1.05  # within one 5 % bucket


@pytest.mark.parametrize(("qos", "expected"), [
    ("low", Pair(5, 40)), ("medium", Pair(5, 40)), ("high", Pair(20, 40)),
    ("critical", Pair(40, 40)),
])
def test_request_by_qos_limit_is_upper(qos: str, expected: Pair) -> None:
    assert choose(COMPUTE, Estimate(5, 20, 40), qos, None) == expected


def test_floors_one_tflops_and_one_gib() -> None:
    assert choose(COMPUTE, Estimate(0, 0, 0), "medium", None) == Pair(1, 1)
    assert choose(VRAM, Estimate(5, 5, 300 << 20), "medium", None) == Pair(GIB, GIB)


def test_clamps_around_the_original() -> None:
    # compute: [0.1×, 10×] of 100 → request 5 → 10; limit never below the original 100
    assert choose(COMPUTE, Estimate(5, 20, 40), "medium", Pair(100, 100)) == Pair(10, 100)
    assert choose(COMPUTE, Estimate(5, 20, 4000), "medium", Pair(100, 100)) == Pair(10, 1000)
    # VRAM: [0.2×, 5×] of 10Gi → request 1Gi → 2Gi; limit 40Gi stays (≤ 50Gi)
    assert choose(VRAM, Estimate(GIB, GIB, 40 * GIB), "medium",
                  Pair(10 * GIB, 10 * GIB)) == Pair(2 * GIB, 40 * GIB)
    # an original of 0 (count-only shared, reference §2.2) skips the clamps
    assert choose(COMPUTE, Estimate(5, 20, 40), "medium", Pair(0, 0)) == Pair(5, 40)


def test_quantile_overrides_both_targets() -> None:
    compute, vram = rules(0.9)
    assert compute.percentiles.target == 0.9 and vram.percentiles.target == 0.9
    assert compute.percentiles.lower == 0.5 and vram.percentiles.upper == 0.99
    assert rules(0.995)[0].percentiles.upper == 0.995  # the upper never below the target
