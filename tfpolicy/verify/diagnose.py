"""Why a Pending TensorFusion pod does not fit: its request against the freest GPU of its pool.

The scheduler's FitError only says that no GPU passed the filters; the
snapshot's GPUs say which resource ran short (the ResourceFilter compares
``available`` with the per-GPU request: NexusGPU/tensor-fusion
internal/gpuallocator/filter/resource_filter.go:24).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from tfpolicy.records import replace
from tfpolicy.scheduler import Isolation, PodRequest
from tfpolicy.verify.verdicts import GpuResult, Problem, Verdict, WorkloadResult

_GPUPOOL_LABEL = "tensor-fusion.ai/gpupool"


def explain_pending(result: WorkloadResult, request: PodRequest | None,
                    gpus: tuple[GpuResult, ...], pools: Mapping[str, str],
                    dynamic: frozenset[str] = frozenset()) -> WorkloadResult:
    """Adds the shortfall to a workload whose pods are Pending and Unschedulable."""
    stuck = any(p.verdict is Verdict.STOP and "Unschedulable" in p.message
                for p in result.problems)
    if not stuck or request is None:
        return result
    if request.isolation is Isolation.PARTITIONED:
        return _partitioned(result, request, pools, dynamic)
    mine = [g for g in gpus if g.name in pools and request.pool in (None, pools[g.name])]
    message = _shortfall(request, mine) if mine else (
        f"no GPU of pool {request.pool or '(the default)'} is usable: none is Running and "
        "free of the device plugin")
    return replace(result, problems=(*result.problems,
                                     Problem(Verdict.STOP, result.workload, message)))


def _need(request: PodRequest, gpu: GpuResult) -> tuple[int, int]:
    """What one pod needs free on ``gpu``: a shared pod the whole card (the
    SharedWholeGPUFilter wants it idle), another its request, a percent of the capacity."""
    if request.isolation is Isolation.SHARED:
        return gpu.capacity_tflops, gpu.capacity_vram
    by_percent = request.percent_request * gpu.capacity_tflops // 100_000 // 1000 * 1000
    return request.tflops_request or by_percent, request.vram_request


def _lacks(request: PodRequest, gpu: GpuResult) -> tuple[int, int]:
    tflops, vram = _need(request, gpu)
    return max(tflops - gpu.tflops, 0), max(vram - gpu.vram, 0)


def _shortfall(request: PodRequest, mine: list[GpuResult]) -> str:
    """Which resource ran short, on the freest GPU; or, for a multi-GPU pod, on which node."""
    fitting = [g for g in mine if _lacks(request, g) == (0, 0)]
    if not fitting:
        return _freest(request, max(mine, key=lambda g: (g.tflops, g.vram)))
    per_node = Counter(g.node for g in fitting)
    node, most = max(sorted(per_node.items()), key=lambda n: n[1])
    if most < request.count:
        return (f"each pod asks {request.count} GPUs on one node; {len(fitting)} GPUs could "
                f"take one pod's share, at most {most} on one node ({node or '?'})")
    return (f"the snapshot shows {len(fitting)} GPUs of its pool with what a pod asks "
            f"({fitting[0].name} among them): the reason is elsewhere (the scheduler's message "
            "above), or the GPUs' status is older than the pod's")


def _freest(request: PodRequest, best: GpuResult) -> str:
    short_t, short_v = _lacks(request, best)
    short = " and ".join(what for what, lack in (("TFLOPS", short_t), ("VRAM", short_v))
                         if lack)
    if request.isolation is Isolation.SHARED:
        return (f"each pod asks {request.count} whole idle GPU(s) (isolation shared); no GPU "
                f"of its pool is idle: the freest ({best.name}) has {_t(best.tflops)} of "
                f"{_t(best.capacity_tflops)} TFLOPS and {best.vram} of {best.capacity_vram} "
                f"MiB free: it lacks {_t(short_t)} TFLOPS and {short_v} MiB to be idle")
    asked = (f"{_t(request.tflops_request)} TFLOPS" if request.tflops_request or not
             request.percent_request else f"{_t(request.percent_request)} % of the TFLOPS "
             f"({_t(_need(request, best)[0])} on that GPU)")
    return (f"each pod asks {asked} and {request.vram_request} MiB per GPU; the freest GPU "
            f"({best.name}) has {_t(best.tflops)} TFLOPS and {best.vram} MiB: insufficient "
            f"{short}")


def _partitioned(result: WorkloadResult, request: PodRequest, pools: Mapping[str, str],
                 dynamic: frozenset[str]) -> WorkloadResult:
    """The allocator refuses partitioned pods on a GPU under the Dynamic isolation policy
    (NexusGPU/tensor-fusion internal/gpuallocator/gpuallocator.go:642-644)."""
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
    system such as the device plugin (NexusGPU/tensor-fusion
    internal/gpuallocator/filter/phase_filter.go:31)."""
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
