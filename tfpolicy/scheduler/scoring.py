"""Integer arithmetic shared by the ledger and the allocators (NexusGPU/tensor-fusion
internal/gpuallocator/filter/resource_filter.go:36, gpuallocator.go:3466)."""

from __future__ import annotations

VRAM_WEIGHT = 700  # thousandths: Helm `vramWeight: 0.7` (`values.yaml:938`)
TFLOPS_WEIGHT = 300  # thousandths: Helm `tflopsWeight: 0.3` (`values.yaml:939`)


def tflops_for_percent(percent: int, capacity: int) -> int:
    """Milli-TFLOPS for a compute percent (milli-percent) of ``capacity`` (milli-TFLOPS).

    Upstream converts with `int64(percent × capacity / 100)` (ResourceFilter,
    filter/resource_filter.go:36): truncated to whole TFLOPS, so 25 % of 149.7 is 37, not 37.425.
    """
    return percent * capacity // 10**8 * 1000


def gpu_score(avail_tflops: int, cap_tflops: int, avail_vram: int, cap_vram: int,
              used: bool, weights: tuple[int, int] = (VRAM_WEIGHT, TFLOPS_WEIGHT)) -> int:
    """`clamp(round(vram% × wv + tflops% × wt), 0, 100)` (`normalizeScore`,
    `gpuallocator.go:3466-3475`), computed exactly; ``weights`` in thousandths.

    ``used`` picks used% (= 100 − avail%) for each term instead of avail%.
    Rounding is half away from zero as Go's `math.Round` (the clamp keeps the
    value non-negative first, which rounds the same); a zero capacity counts
    as nothing free.
    """
    if cap_tflops <= 0:
        cap_tflops, avail_tflops = 1, 0
    if cap_vram <= 0:
        cap_vram, avail_vram = 1, 0
    vram_w, tflops_w = weights
    den = 1000 * cap_vram * cap_tflops
    num = 100 * (vram_w * avail_vram * cap_tflops + tflops_w * avail_tflops * cap_vram)
    if used:
        num = 100 * (vram_w + tflops_w) * cap_vram * cap_tflops - num
    num = min(max(num, 0), 100 * den)
    return (2 * num + den) // (2 * den)
