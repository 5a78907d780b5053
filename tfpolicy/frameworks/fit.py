"""One verdict on a pre-allocating server under a VRAM limit: ``check`` and ``recommend``'s.

TensorFusion's soft limiter shows the process its limit as the device's total memory
(docs/recommend.md, "What TensorFusion shows the process"), so the pool a framework
takes is a share of the limit (``pool``). The verdict is the first that holds:

- the model's size is unknown: info, saying how to declare it;
- the pool starves the server (warning): nothing left for the KV cache beside the
  weights and overhead, or, for vLLM, less than one sequence at its maximum length
  (vLLM refuses to start then: vllm-project/vllm vllm/v1/core/kv_cache_utils.py
  ``check_enough_kv_cache_memory``; the others cap their lengths to the pool);
- SGLang's static share leaves less than the overhead outside it for activations and
  CUDA graphs (warning);
- the pool fits but leaves the KV cache less than its budget (info: no headroom), where
  the budget is the user's: a maximum length on the command line, or ``workingMemory``
  (a server left at its model's own length, 128k tokens for Llama 3.1, caps its lengths
  to its pool: four such sequences are no budget to hold it to).

Each names the setting, defaulted or not, and the value that fits (the least share, in
hundredths, whose pool holds the weights, the overhead and the user's budget, or, when
no value holds that, what it needs to start), or the limit that does, the setting as it
is, when no value of the setting can. ``recommend`` prints the verdict ``check`` would give
on the unchanged manifest under its limit: the two commands give one answer.
"""

from __future__ import annotations

import math

from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.sizing import Sizes, gib, sglang_reserve
from tfpolicy.records import Record

SOFT = "TensorFusion's soft limiter shows the process its limit as the total memory"
_ONE_SEQUENCE = frozenset({"vLLM"})


class Pool(Record):
    taken: int  # what the framework takes as its pool
    kv: int  # what that pool leaves the KV cache (≤ 0: nothing)
    outside: int  # what the limit leaves outside a static share
    phrase: str  # how it is taken, naming the setting


class Verdict(Record):
    severity: str  # "warning" | "info"
    message: str  # naming the setting and the value that fits
    value: float | None = None  # the setting's value that fits; None: a limit is named


def pool(found: Found, limit: int, weights: int, overhead: int, parallel: int = 1) -> Pool:
    """What the framework takes under ``limit`` (as the total it is shown)."""
    name, share, fraction = found.framework.name, found.framework.share, found.fraction
    if share == "static":
        if fraction is None:
            reserve = sglang_reserve(limit, parallel)
            taken = limit - reserve
            return Pool(taken, taken - weights, reserve,
                        f"{name} ({found.where}) keeps the limit less its {gib(reserve)} "
                        f"reserve = {gib(taken)} for weights and KV cache")
        taken = math.floor(fraction * limit)
        return Pool(taken, taken - weights, limit - taken,
                    f"{name} ({found.where}) keeps {float(fraction):g} × the limit = "
                    f"{gib(taken)} for weights and KV cache")
    if share == "free":
        free = limit - weights - overhead
        kv = math.floor((fraction or 0) * free) if free > 0 else free
        return Pool(weights + overhead + max(kv, 0), kv, 0,
                    f"{name} ({found.where}) gives its KV cache {float(fraction or 0):g} of "
                    f"what the weights and overhead leave of the limit = {gib(max(kv, 0))}")
    taken = math.floor((fraction or 0) * limit)
    return Pool(taken, taken - weights - overhead, limit - taken,
                f"{name} ({found.where}) takes {float(fraction or 0):g} × the limit = "
                f"{gib(taken)}")


def judge(found: Found, limit: int, sized: Sizes) -> Verdict | None:
    """The verdict under soft isolation, or None when the pool holds what it needs."""
    if found.fraction is None and found.framework.share != "static":
        return Verdict("info", f"{found.framework.name} ({found.where}): tfpolicy cannot tell "
                               f"the pool it takes under vram-limit {gib(limit)}; "
                               f"set {found.framework.setting} to a number in (0, 1]")
    if sized.weights is None:
        return _unknown(found, limit, sized)
    taken = pool(found, limit, sized.weights, sized.overhead, sized.parallel)
    floor = _floor(found, sized)
    target = _target(found, limit, sized, floor)
    if taken.kv < floor:
        return _starves(found, limit, sized, taken, floor, target)
    if found.framework.share == "static" and taken.outside < sized.overhead:
        return Verdict("warning", (
            f"vram-limit {gib(limit)} leaves a pre-allocating framework too little outside its "
            f"share: {taken.phrase} ({SOFT}), so {gib(taken.outside)} is left for activations "
            f"and CUDA graphs, below the {gib(sized.overhead)} overhead (the share holds weights "
            f"{gib(sized.weights)} ({sized.weights_basis}) and the KV cache); "
            f"{_fix(found, limit, sized, target)}"), _value(found, limit, sized, target))
    if sized.working is not None and sized.budgeted and taken.kv < sized.working:
        target = max(sized.working, floor)
        return Verdict("info", (
            f"vram-limit {gib(limit)} fits a pre-allocating framework with no headroom: "
            f"{taken.phrase} ({SOFT}), which leaves its KV cache {gib(taken.kv)}, below the "
            f"{gib(sized.working)} budgeted ({sized.working_basis}); "
            f"{_fix(found, limit, sized, target)}"), _value(found, limit, sized, target))
    return None


def _target(found: Found, limit: int, sized: Sizes, floor: int) -> int:
    """What a fix aims the KV cache at: the user's budget where a value of the setting
    holds it under this limit, else what the server needs to start."""
    if sized.budgeted and sized.working is not None and sized.working > floor and \
            _value(found, limit, sized, sized.working) is not None:
        return sized.working
    return floor


def _floor(found: Found, sized: Sizes) -> int:
    """The least KV cache it starts with: one sequence for vLLM, else more than nothing."""
    if found.framework.name in _ONE_SEQUENCE and sized.one_sequence is not None:
        return max(sized.one_sequence, 1)
    return 1


def _starves(found: Found, limit: int, sized: Sizes, taken: Pool, floor: int,
             target: int) -> Verdict:
    weights = sized.weights or 0
    static = found.framework.share == "static"
    least = weights + (0 if static else sized.overhead) + (floor if floor > 1 else 0)
    what = f"weights {gib(weights)} ({sized.weights_basis})"
    what += "; the overhead stays outside the share" if static else \
        f", overhead {gib(sized.overhead)}"
    if floor > 1:
        what += f", one sequence's KV cache {gib(floor)} ({sized.length} tokens)"
    return Verdict("warning", (
        f"vram-limit {gib(limit)} starves a pre-allocating framework: {taken.phrase} ({SOFT}), "
        f"below the {gib(least)} it needs at least ({what}); "
        f"{_fix(found, limit, sized, target)}"), _value(found, limit, sized, target))


def _unknown(found: Found, limit: int, sized: Sizes) -> Verdict:
    taken = pool(found, limit, 0, sized.overhead, sized.parallel)
    setting = found.framework.setting
    off = found.framework.disabled_by
    alternative = f"; or set {off[0][0]}={off[0][1]} so that it allocates as it grows" \
        if off else ""
    sized_too = f"the limit and {setting}" if found.framework.flag or found.framework.env \
        else "the limit"
    return Verdict("info", (
        f"{taken.phrase} under vram-limit {gib(limit)} ({SOFT}), but the model's size is "
        f"unknown ({sized.weights_basis}), so whether that holds it is not established; "
        "declare its weights per GPU as modelWeights (and its KV cache as workingMemory) in "
        "this workload's entry of a policy given to tfpolicy recommend -p, which sizes "
        f"{sized_too} from them{alternative}"))


def _fix(found: Found, limit: int, sized: Sizes, target: int) -> str:
    """The value of the setting that holds ``target`` of KV cache, else the limit that does."""
    value = _value(found, limit, sized, target)
    if value is not None:
        return f"set {found.set_to(value)}"
    setting = found.framework.setting
    need = least_limit(found, sized.weights or 0, sized.overhead, target, sized.parallel)
    other = _static_pair(found, sized, target) if found.framework.share == "static" else None
    if need is None and other is None:
        return f"no value of {setting} fits this limit: raise vram-limit and lower {setting}"
    said = f"no value of {setting} fits this limit: raise vram-limit to at least "
    if need is not None:
        said += f"{gib(need)} (with {setting} as it is)"
    if other is not None and (need is None or other[0] < need):
        said += f"{', or to' if need is not None else ''} {gib(other[0])} and set " \
                f"{found.set_to(other[1])}"
    return said


def _static_pair(found: Found, sized: Sizes, target: int) -> tuple[int, float] | None:
    """The least limit, and the static share, that hold the weights and ``target`` inside
    the share and the overhead outside it."""
    limit = -(-(sized.weights or 0) - target - sized.overhead) // (1 << 20) * (1 << 20)
    for _ in range(8):  # rounding the share up to hundredths may take a little more
        value = _value(found, limit, sized, target)
        if value is not None:
            return limit, value
        limit = -(-limit * 101 // 100) // (1 << 20) * (1 << 20)
    return None


def _value(found: Found, limit: int, sized: Sizes, kv: int) -> float | None:
    """The least share, in hundredths, whose pool under ``limit`` leaves ``kv`` to the KV
    cache (and, for a static share, the overhead outside it); None when none does."""
    if not (found.framework.flag or found.framework.env):
        return None
    weights, overhead = sized.weights or 0, sized.overhead
    share = found.framework.share
    if share == "free":
        free = limit - weights - overhead
        return _up(kv / free) if free > 0 else None
    if share == "static":
        low, high = _up((weights + kv) / limit), math.floor((limit - overhead) / limit * 100) / 100
        return low if low is not None and low <= high else None
    return _up((weights + overhead + kv) / limit)


def least_limit(found: Found, weights: int, overhead: int, kv: int,
                parallel: int = 1) -> int | None:
    """The least limit under which the container's setting, as it is, leaves ``kv`` to the
    KV cache beside ``weights`` and ``overhead``; None when no limit does."""
    share, fraction = found.framework.share, found.fraction
    if share == "static" and fraction is None:
        limit = weights + kv + overhead
        for _ in range(4):  # SGLang's reserve grows with the memory it is shown
            limit = weights + kv + sglang_reserve(limit, parallel)
        return limit
    if fraction is None or fraction <= 0:
        return None
    if share == "free":
        return weights + overhead + math.ceil(kv / fraction)
    if share == "static":
        if fraction >= 1:
            return None
        return max(math.ceil((weights + kv) / fraction), math.ceil(overhead / (1 - fraction)))
    return math.ceil((weights + overhead + kv) / fraction)


def _up(value: float) -> float | None:
    rounded = math.ceil(value * 100 - 1e-9) / 100
    return rounded if 0 < rounded <= 1 else None
