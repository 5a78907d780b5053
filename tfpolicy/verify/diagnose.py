"""Why a Pending TensorFusion pod does not fit: its request against the freest GPU of its pool.

The scheduler's FitError only says that no GPU passed the filters; the
snapshot's GPUs say which resource ran short (the ResourceFilter compares
``available`` with the per-GPU request, reference §5.2 step 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tfpolicy.scheduler import Isolation, PodRequest
from tfpolicy.verify.records import GpuResult, Problem, Verdict, WorkloadResult

_GPUPOOL_LABEL = "tensor-fusion.ai/gpupool"


def explain_pending(result: WorkloadResult, request: PodRequest | None,
                    gpus: tuple[GpuResult, ...], pools: Mapping[str, str],
                    dynamic: frozenset[str] = frozenset()) -> WorkloadResult:
    """Adds the shortfall to a workload whose pods are Pending and Unschedulable."""
    stuck = any(p.verdict is Verdict.STOP and "Unschedulable" in p.message
                for p in result.problems)
    if not stuck or request is None or request.isolation is Isolation.SHARED:
        return result
    if request.isolation is Isolation.PARTITIONED:
        return _partitioned(result, request, pools, dynamic)
    mine = [g for g in gpus if g.name in pools and request.pool in (None, pools[g.name])]
    if not mine:
        return result
    best = max(mine, key=lambda g: (g.tflops, g.vram))
    short = [what for what, ask, has in (("TFLOPS", request.tflops_request, best.tflops),
                                         ("VRAM", request.vram_request, best.vram)) if ask > has]
    if not short:
        return result
    message = (f"each pod asks {_t(request.tflops_request)} TFLOPS and {request.vram_request} "
               f"MiB per GPU; the freest GPU ({best.name}) has {_t(best.tflops)} TFLOPS and "
               f"{best.vram} MiB: insufficient {' and '.join(short)}")
    return replace(result, problems=(*result.problems,
                                     Problem(Verdict.STOP, result.workload, message)))


def _partitioned(result: WorkloadResult, request: PodRequest, pools: Mapping[str, str],
                 dynamic: frozenset[str]) -> WorkloadResult:
    """The allocator refuses partitioned pods on a GPU under the Dynamic isolation policy
    (`internal/gpuallocator/gpuallocator.go:642-644`, reference §5.2 step 2)."""
    mine = [g for g, pool in pools.items() if request.pool in (None, pool)]
    if not mine or not all(g in dynamic for g in mine):
        return result
    message = ("partitioned pods cannot be placed: every GPU of their pool is under the "
               "Dynamic isolation policy, which refuses partitions (Helm "
               "controller.isolationModePolicy: static)")
    return replace(result, problems=(*result.problems,
                                     Problem(Verdict.STOP, result.workload, message)))


def dynamic_gpus(gpus: tuple[Mapping[str, Any], ...]) -> frozenset[str]:
    """GPUs whose ``status.isolationPolicy`` is Dynamic."""
    return frozenset(str(g["metadata"]["name"]) for g in gpus
                     if (g.get("status") or {}).get("isolationPolicy") == "Dynamic")


def gpu_pools(gpus: tuple[Mapping[str, Any], ...]) -> dict[str, str]:
    """GPU name → pool, for the GPUs the allocator may use: Running and not held by another
    system such as the device plugin (§5.2 step 3)."""
    found = {}
    for gpu in gpus:
        status = gpu.get("status") or {}
        if status.get("phase") == "Running" and status.get("usedBy") in (None, "",
                                                                         "tensor-fusion"):
            labels = (gpu.get("metadata") or {}).get("labels") or {}
            found[str(gpu["metadata"]["name"])] = str(labels.get(_GPUPOOL_LABEL, ""))
    return found


def _t(milli: int) -> str:
    whole, rest = divmod(milli, 1000)
    return f"{whole}" if not rest else f"{whole}.{rest:03d}".rstrip("0")
