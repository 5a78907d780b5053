"""VRAM of a workload whose server pre-allocates a pool: from the model, not the card.

The framebuffer such a pod shows in use is the pool its framework took (issue 32),
so it is reported as the pool and never sized as the need. The need is the
model's (``tfpolicy.frameworks.sizing``): weights, an overhead, and the working
memory, which is the peak share of its KV-cache pool in use where the framework
exports it (the ``cache`` query), else a default budget. Request = limit: the
framework takes its pool at start, whatever it later uses. The margin is added
as to every estimate; the limit is rounded up to whole MiB. The framework
setting that keeps its pool inside the limit is given beside it.
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.sizing import GIB, Given, Need, fitting_fraction, need
from tfpolicy.records import Record

MIB = 1 << 20


class PoolSizing(Record):
    limit: int  # bytes; the request is the same
    need: Need
    pool_mib: float  # the peak the card showed in use: the pool
    setting: str  # the framework setting that fits the limit, or why none is given


def size(found: Found, given: Given, pool_mib: float, cache_peak: float | None,
         margin: float) -> PoolSizing | str:
    """The limit from the model's need, or why it cannot be told."""
    pool = int(pool_mib * MIB)
    sized = need(found, given, pool, cache_peak)
    if isinstance(sized, str):
        return (f"{found.framework.name} pre-allocates its pool ({found.where}), so the "
                f"measured {pool_mib / 1024:.1f}Gi is the pool, not the need; {sized}")
    limit = max(-(-math.ceil(sized.total * (1 + margin)) // MIB) * MIB, GIB)
    return PoolSizing(limit, sized, pool_mib, _setting(found, sized, limit))


def _setting(found: Found, sized: Need, limit: int) -> str:
    framework = found.framework
    fraction = fitting_fraction(found, sized, limit)
    name = framework.flag or framework.env
    if fraction is None or not name:
        return (f"set {framework.name}'s memory share so that its pool fits the limit"
                if name else "")
    shown = f"{name} {fraction:.2f}" if name.startswith("-") else f"{name}={fraction:.2f}"
    return (f"set {shown} (now {found.where}): under TensorFusion's soft limiter the "
            "process sees the limit as its total memory")


def evidence(sizing: PoolSizing, found: Found) -> list[str]:
    """The lines that say which figures the limit came from."""
    sized = sizing.need
    lines = [f"VRAM: the {sizing.pool_mib / 1024:.1f}Gi measured is {found.framework.name}'s "
             f"pre-allocated pool ({found.where}), not its need",
             f"need {_gib(sized.total)} = weights {_gib(sized.weights)} ({sized.weights_basis}) "
             f"+ overhead {_gib(sized.overhead)} + KV cache {_gib(sized.working)} "
             f"({sized.working_basis}); limit = need × (1 + margin)"]
    if sizing.setting:
        lines.append(f"apply: {sizing.setting}")
    return lines


def _gib(value: int) -> str:
    return f"{value / GIB:.2f}Gi"
