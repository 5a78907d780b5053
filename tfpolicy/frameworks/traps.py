"""``check`` and ``plan``: a VRAM limit that starves a pre-allocating framework.

TensorFusion's soft limiter (the ``libcuda_limiter.so`` it preloads) answers
``cuMemGetInfo``, ``cuDeviceTotalMem`` and ``nvmlDeviceGetMemoryInfo`` with the
pod's VRAM limit as the device's total (NexusGPU/vgpu.rs
``crates/cuda-limiter/src/detour/mem.rs:311-317``, ``detour/nvml.rs:38-41``; the
limit is the pod's ``vram-limit``, ``crates/hypervisor/src/core/pod/device_info.rs:176``).
So under soft isolation a framework's fraction is a share of the limit: its pool
stays inside the limit, and the trap is a pool too small for the model
(``fit.judge``, the verdict ``recommend`` prints too). Under hard isolation the
limiter installs no hooks (``crates/cuda-limiter/src/lib.rs:446-456``) and what the
process is shown is not established here: the warning says so.

``pool_findings`` gives every verdict with its severity (``check``: warnings, and
infos for a model of unknown size or a pool with no headroom); ``pool_traps`` only
the warnings, as ``(rule, message, path)`` (``plan``'s step warnings).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.records import Record

if TYPE_CHECKING:
    from tfpolicy.frameworks.detect import Found
    from tfpolicy.frameworks.fit import Verdict

# The frameworks' tables (detect, sizing) are imported where a template has a vram-limit
# to check them against: a run on templates without one never loads them.

_PREFIX = "tensor-fusion.ai/"
RULE = "framework-pool"
HARD_UNKNOWN = ("under isolation hard TensorFusion's limiter installs no memory hooks "
                "(NexusGPU/vgpu.rs crates/cuda-limiter/src/lib.rs:446-456), so whether the "
                "process is shown the whole card or its limit is not established")


class PoolFinding(Record):
    severity: str  # "warning" | "info"
    rule: str
    message: str
    path: str  # relative to the pod template


def pool_traps(template: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(rule, message, field path) for each pre-allocating container the limit starves."""
    return [(f.rule, f.message, f.path) for f in pool_findings(template)
            if f.severity == "warning"]


def pool_findings(template: Mapping[str, Any]) -> list[PoolFinding]:
    """Every pre-allocating container's verdict under the template's vram-limit."""
    path = f"metadata.annotations[{_PREFIX}vram-limit]"
    return [PoolFinding(verdict.severity, RULE, f"container {found.container}: "
                        f"{verdict.message}", path) for found, verdict in judged(template)]


def judged(template: Mapping[str, Any]) -> list[tuple[Found, Verdict]]:
    """Each pre-allocating container with a verdict under the template's vram-limit, and
    the verdict (``promote`` refuses a rightsize rung on a warning: docs/promote.md)."""
    meta = template.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(annotations, Mapping):
        return []
    limit = _bytes(annotations.get(_PREFIX + "vram-limit"))
    isolation = str(annotations.get(_PREFIX + "isolation", "soft"))
    if limit is None or isolation in ("shared", "partitioned"):
        return []
    found = []
    for found_ in _frameworks(template, annotations):
        verdict = verdict_for(found_, limit, isolation)
        if verdict is not None:
            found.append((found_, verdict))
    return found


def verdict_for(found: Found, limit: int, isolation: str) -> Verdict | None:
    """What ``check`` says of one container under ``limit``, sized from the container alone."""
    from tfpolicy.frameworks.fit import Verdict, judge
    from tfpolicy.frameworks.sizing import sizes

    if isolation == "hard":
        return Verdict("warning", _hard(found, limit))
    return judge(found, limit, sizes(found))


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
    setting, off = found.setting or found.framework.setting, found.framework.disabled_by
    if found.framework.flag or found.framework.env:
        fix = (f"set {setting} to at most vram-limit ÷ the card's memory" if fraction is not None
               else f"set {setting} so that its pool fits the limit")
    else:
        fix = f"set {off[0][0]}={off[0][1]} so that it allocates as it grows" if off else ""
    return (f"{found.framework.name} pre-allocates{share} {shown} ({found.where}); "
            f"{HARD_UNKNOWN}: if it is the card, {then}{'; ' + fix if fix else ''}")


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
