"""``check`` and ``plan``: a VRAM limit that starves a pre-allocating framework.

TensorFusion's soft limiter (the ``libcuda_limiter.so`` it preloads) answers
``cuMemGetInfo``, ``cuDeviceTotalMem`` and ``nvmlDeviceGetMemoryInfo`` with the
pod's VRAM limit as the device's total (NexusGPU/vgpu.rs
``crates/cuda-limiter/src/detour/mem.rs:311-317``, ``detour/nvml.rs:38-41``; the
limit is the pod's ``vram-limit``, ``crates/hypervisor/src/core/pod/device_info.rs:176``).
So under soft isolation a framework's fraction is a share of the limit: its pool
stays inside the limit, and the trap is a pool too small for the model. Under
hard isolation the limiter installs no hooks (``crates/cuda-limiter/src/lib.rs:446-456``)
and what the process is shown is not established here: the warning says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfpolicy.gpus.quantity import QuantityError, parse_quantity

if TYPE_CHECKING:
    from tfpolicy.frameworks.detect import Found

# The frameworks' tables (detect, sizing) are imported where a template has a vram-limit
# to check them against: a run on templates without one never loads them.

_PREFIX = "tensor-fusion.ai/"
# vLLM refuses to start when one sequence of --max-model-len does not fit its KV cache
# (vllm-project/vllm vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory); the
# others cap their lengths to the pool, so only their weights and overhead must fit.
_ONE_SEQUENCE = frozenset({"vLLM"})
HARD_UNKNOWN = ("under isolation hard TensorFusion's limiter installs no memory hooks "
                "(NexusGPU/vgpu.rs crates/cuda-limiter/src/lib.rs:446-456), so whether the "
                "process is shown the whole card or its limit is not established")


def pool_traps(template: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(rule, message, field path) for each pre-allocating container the limit starves."""
    meta = template.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(annotations, Mapping):
        return []
    limit = _bytes(annotations.get(_PREFIX + "vram-limit"))
    isolation = str(annotations.get(_PREFIX + "isolation", "soft"))
    if limit is None or isolation in ("shared", "partitioned"):
        return []
    path = f"metadata.annotations[{_PREFIX}vram-limit]"
    found = []
    for found_ in _frameworks(template, annotations):
        message = _hard(found_, limit) if isolation == "hard" else _soft(found_, limit)
        if message:
            found.append(("framework-pool", f"container {found_.container}: {message}", path))
    return found


def _frameworks(template: Mapping[str, Any], annotations: Mapping[str, Any]) -> list[Found]:
    spec = template.get("spec")
    listed = spec.get("containers") if isinstance(spec, Mapping) else None
    if not isinstance(listed, list):
        return []
    from tfpolicy.frameworks.detect import detect

    named = {n.strip() for n in str(annotations.get(_PREFIX + "inject-container", "")).split(",")
             if n.strip()}
    found = []
    for index, container in enumerate(listed):
        if not isinstance(container, Mapping):
            continue
        if named and container.get("name") not in named:
            continue
        hit = detect(container, index)
        if hit is not None and hit.preallocates:
            found.append(hit)
    return found


def _soft(found: Found, limit: int) -> str:
    """The pool (the fraction of the limit, which the process sees as its total) below
    the model's weights, overhead and one sequence at the maximum length."""
    from tfpolicy.frameworks.sizing import OVERHEAD

    least = _least(found)
    if least is None:
        return ""
    floor, what = least
    name = found.framework.name
    if found.framework.share == "static":  # its share holds weights and KV cache only
        floor -= OVERHEAD
        what = what.split(",")[0] + "; the overhead stays outside the share"
    if found.fraction is None:
        pool, taken = limit - OVERHEAD, f"{name} ({found.where}) keeps at most about"
    elif found.framework.share == "free":
        pool, taken = limit, f"{name} ({found.where}) has at most"
    else:
        pool = math.floor(found.fraction * limit)
        taken = f"{name} ({found.where}) takes {float(found.fraction):g} × the limit ="
    if pool >= floor:
        return ""
    return (f"vram-limit {_gib(limit)} starves a pre-allocating framework: {taken} "
            f"{_gib(pool)} (TensorFusion's soft limiter shows the process its limit as the "
            f"total memory), below the {_gib(floor)} it needs at least ({what}); raise "
            f"vram-limit, or see tfpolicy recommend for the size and setting that fit")


def _least(found: Found) -> tuple[int, str] | None:
    """Weights + overhead (+ the KV cache of one sequence at the maximum length for vLLM)."""
    from tfpolicy.frameworks.sizing import SEQUENCES, Given, need

    sized = need(found, Given(), None, None)
    if isinstance(sized, str):
        return None
    what = f"weights {_gib(sized.weights)}, overhead {_gib(sized.overhead)}"
    if found.framework.name not in _ONE_SEQUENCE:
        return sized.weights + sized.overhead, what
    one = sized.working // SEQUENCES  # need() budgets SEQUENCES of them
    return sized.weights + sized.overhead + one, f"{what}, one sequence's KV cache {_gib(one)}"


def _hard(found: Found, limit: int) -> str:
    """What is not established, and the card size from which the pool would pass the limit:
    a share F of the card (of what its weights leave, for TensorRT-LLM: then weights plus F
    of the rest) is above the limit on any card larger than limit ÷ F."""
    fraction = found.fraction
    share = "" if fraction is None else " all" if fraction == 1 else f" {float(fraction):g} of"
    shown = "the memory left free once its weights load" if found.framework.share == "free" \
        else "the memory it is shown"
    then = "its pool is sized from the card, not from the vram-limit" if fraction is None else \
        (f"the pool exceeds the vram-limit {_gib(limit)} on any card larger than "
         f"{_gib(math.floor(limit / fraction))}")
    return (f"{found.framework.name} pre-allocates{share} {shown} ({found.where}); "
            f"{HARD_UNKNOWN}: if it is the card, {then}; set the framework's setting to fit "
            "the limit")


def _bytes(value: Any) -> int | None:
    if value is None:
        return None
    try:
        amount = parse_quantity(str(value))
    except QuantityError:
        return None  # reported as a bad quantity elsewhere
    return int(amount) if amount > 0 else None


def _gib(value: int) -> str:
    from tfpolicy.frameworks.sizing import GIB

    return f"{value / GIB:.2f}Gi"
