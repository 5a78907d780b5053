"""Per GPU: what ``GPU.status.available`` reports against the plan's ledger, as the
allocator's commit takes from it (NexusGPU/tensor-fusion
internal/gpuallocator/gpuallocator.go:1311).

The cluster's scheduler chose the GPUs (the pod's ``gpu-ids``); on each, a
pod's commit takes its per-GPU request, a ``shared`` pod the whole card
(available 0/0), and a percent request ``percent × capacity / 100`` truncated
to whole TFLOPS (``filter/resource_filter.go:36``), a ``partitioned`` pod its partition's
template (:mod:`tfpolicy.verify.partitions`, which also checks the GPU's
``allocatedPartitions`` against its pods). The request is the plan's for the
workload; a pod the manifests do not cover counts with its own annotations.
The operator writes ``available`` every 10 s, hence a tolerance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from tfpolicy.admission.keys import (
    ISOLATION,
    PARTITION_ID,
    PERCENT_REQUEST,
    TFLOPS_REQUEST,
    VRAM_REQUEST,
)
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import QuantityError, milli
from tfpolicy.inventory.fields import tflops_of, vram_of
from tfpolicy.records import Record, replace
from tfpolicy.scheduler import Isolation, PodRequest
from tfpolicy.verify.cluster_snapshot import Snapshot, meta, name_of, namespace_of
from tfpolicy.verify.partitions import Placed, ledger, shown
from tfpolicy.verify.pods import PodState
from tfpolicy.verify.verdicts import GpuResult, Problem, Verdict

TFLOPS_TOLERANCE = 1000  # milli-TFLOPS: one TFLOPS
VRAM_TOLERANCE = 256  # MiB


class Take(Record):
    """What one pod takes from each of its GPUs."""

    tflops: int = 0  # milli-TFLOPS
    percent: int = 0  # milli-percent
    vram: int = 0  # MiB
    whole: bool = False
    partition: Placed | None = None  # partitioned isolation: the template decides


def check_gpus(snapshot: Snapshot, states: Mapping[str, tuple[PodState, str]],
               requests: Mapping[str, PodRequest | None]) -> tuple[GpuResult, ...]:
    pods = {f"{namespace_of(p)}/{name_of(p)}": p for p in snapshot.of("Pod")}
    on_gpu: dict[str, list[tuple[str, Take]]] = defaultdict(list)
    for key, (state, workload) in sorted(states.items()):
        if state.active and state.tensor_fusion:
            # a pod at another share than the step's holds what its own annotations say
            take = _take(None if state.stale else requests.get(workload), pods[key], key)
            for gpu in state.gpu_ids:
                on_gpu[gpu].append((key, take))
    return tuple(_gpu(gpu, on_gpu.get(name_of(gpu), [])) for gpu in snapshot.of("GPU"))


def _take(request: PodRequest | None, pod: Mapping[str, Any], key: str) -> Take:
    notes = meta(pod, "annotations")
    if notes.get(ISOLATION) == "partitioned" or (
            request is not None and request.isolation is Isolation.PARTITIONED):
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        return Take(partition=Placed(key, uid, str(notes.get(PARTITION_ID) or "")))
    if request is not None:
        return Take(request.tflops_request, request.percent_request, request.vram_request,
                    request.isolation is Isolation.SHARED)
    where = f"Pod {namespace_of(pod)}/{name_of(pod)}"
    return Take(int(tflops_of(notes.get(TFLOPS_REQUEST, "0"), f"{where} {TFLOPS_REQUEST}")),
                _percent(notes.get(PERCENT_REQUEST, "0"), where),
                int(vram_of(notes.get(VRAM_REQUEST, "0"), f"{where} {VRAM_REQUEST}")),
                notes.get(ISOLATION) == "shared")


def _percent(value: Any, where: str) -> int:
    try:
        return milli(str(value))
    except (QuantityError, ValueError):
        raise TfpolicyError(f"{where}: {PERCENT_REQUEST} is not a quantity") from None


def _gpu(gpu: Mapping[str, Any], takes: list[tuple[str, Take]]) -> GpuResult:
    status = gpu.get("status") or {}
    name = name_of(gpu)
    capacity, available = status.get("capacity") or {}, status.get("available") or {}
    cap_t = int(tflops_of(capacity.get("tflops", "0"), f"GPU {name} status.capacity.tflops"))
    cap_v = int(vram_of(capacity.get("vram", "0"), f"GPU {name} status.capacity.vram"))
    has_t = int(tflops_of(available.get("tflops", "0"), f"GPU {name} status.available.tflops"))
    has_v = int(vram_of(available.get("vram", "0"), f"GPU {name} status.available.vram"))
    placed = [t.partition for _, t in takes if t.partition is not None]
    part_t, part_v, troubles = ledger(placed, status, (cap_t, cap_v))
    want_t, want_v = _left(cap_t, cap_v, [t for _, t in takes if t.partition is None])
    want_t, want_v = max(want_t - part_t, 0), max(want_v - part_v, 0)
    node = str((status.get("nodeSelector") or {}).get("kubernetes.io/hostname", ""))
    result = GpuResult(name, node, has_t, has_v, want_t, want_v, tuple(k for k, _ in takes),
                       partitions=shown(status), capacity_tflops=cap_t, capacity_vram=cap_v)
    if status.get("usedBy") not in (None, "", "tensor-fusion"):
        return result  # a device-plugin GPU is outside the TensorFusion ledger
    if abs(has_t - want_t) > TFLOPS_TOLERANCE or abs(has_v - want_v) > VRAM_TOLERANCE:
        troubles.insert(0, f"reports {_tflops(has_t)} TFLOPS, {has_v} MiB available; the plan "
                        f"leaves {_tflops(want_t)} TFLOPS, {want_v} MiB"
                        + _whole_taken(takes, (has_t, has_v), (cap_t, cap_v)))
    if not troubles:
        return result
    return replace(result, problem=Problem(Verdict.STOP, f"GPU/{name}", "; ".join(troubles)))


def _whole_taken(takes: list[tuple[str, Take]], available: tuple[int, int],
                 capacity: tuple[int, int]) -> str:
    """Said when the card shows taken whole while its pods hold shares: the limiter's
    accounting (available minus each pod's request) is not what the allocator committed."""
    shares = [t for _, t in takes if not t.whole and t.partition is None]
    if available != (0, 0) or not shares or len(shares) < len(takes) or capacity == (0, 0):
        return ""
    return (f": the card shows taken whole, not reduced by its {len(shares)} pods' requests "
            "(a pod of it still admitted with isolation shared, or the status not yet synced "
            "since the rollout: verify again)")


def _left(capacity: int, vram: int, takes: list[Take]) -> tuple[int, int]:
    """What the takes leave; a percent is of the card's capacity, not of what is left
    (the ResourceFilter's ``percent × capacity / 100``, ``filter/resource_filter.go:36``)."""
    tflops = capacity
    for take in takes:
        if take.whole:
            return 0, 0
        by_percent = take.percent * capacity // 100_000 // 1000 * 1000
        tflops -= take.tflops or by_percent
        vram -= take.vram
    return max(tflops, 0), max(vram, 0)


def _tflops(value: int) -> str:
    whole, rest = divmod(value, 1000)
    return f"{whole}" if not rest else f"{whole}.{rest:03d}".rstrip("0")
