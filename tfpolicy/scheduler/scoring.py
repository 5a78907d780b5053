"""Integer arithmetic shared by the ledger and the allocators (§5.2–5.3)."""

from __future__ import annotations

VRAM_WEIGHT = 7  # tenths: Helm `vramWeight: 0.7`
TFLOPS_WEIGHT = 3  # tenths: Helm `tflopsWeight: 0.3`


def tflops_for_percent(percent: int, capacity: int) -> int:
    """Milli-TFLOPS for a compute percent (milli-percent) of ``capacity`` (milli-TFLOPS).

    Upstream converts with `int64(percent × capacity / 100)` (§5.2 ResourceFilter,
    §9 item 12): truncated to whole TFLOPS, so 25 % of 149.7 is 37, not 37.425.
    """
    return percent * capacity // 10**8 * 1000


def gpu_score(avail_tflops: int, cap_tflops: int, avail_vram: int, cap_vram: int,
              used: bool) -> int:
    """`clamp(round(vram% × 0.7 + tflops% × 0.3), 0, 100)` (§5.3), computed exactly.

    ``used`` picks used% (= 100 − avail%) instead of avail%. Rounding is half
    away from zero as Go's `math.Round`; a zero capacity counts as nothing free.
    """
    if cap_tflops <= 0:
        cap_tflops, avail_tflops = 1, 0
    if cap_vram <= 0:
        cap_vram, avail_vram = 1, 0
    den = 10 * cap_vram * cap_tflops
    num = 100 * (VRAM_WEIGHT * avail_vram * cap_tflops + TFLOPS_WEIGHT * avail_tflops * cap_vram)
    if used:
        num = 100 * den - num
    num = min(max(num, 0), 100 * den)
    return (2 * num + den) // (2 * den)
