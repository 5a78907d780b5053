"""From an admitted pod to what the scheduler places (docs/design.md,
"Simulating the cluster": admission feeds the scheduler).

Admission and the scheduler both count compute percent in milli-percent,
so ``12.5`` stays exact. A native GPU pod (not taken over) becomes a
device-plugin request for its whole-GPU count; a MIG slice counts as a
whole GPU, as the webhook counts it (NexusGPU/tensor-fusion
internal/webhook/v1/tf_parser.go:427). A container that asks
HAMi only for a share holds the card HAMi's webhook gives it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import AllocationRequest
from tfpolicy.admission.native import HAMI_SHARES, hami_default_gpus, native_gpus
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.scheduler import Isolation, PodKind, PodRequest

# `partitioned` reaches the scheduler as itself: the Dynamic policy refuses it there, with
# upstream's reason (`gpuallocator.go:642-644`); an unknown mode is soft, the webhook default.
ISOLATION: dict[str, Isolation] = {
    "shared": Isolation.SHARED, "soft": Isolation.SOFT, "hard": Isolation.HARD,
    "partitioned": Isolation.PARTITIONED,
}


def tf_request(name: str, workload: str, alloc: AllocationRequest) -> PodRequest:
    """A TensorFusion pod's request, per GPU, from the webhook's allocation request
    (NexusGPU/tensor-fusion internal/utils/resource.go:132)."""
    return PodRequest(
        name, alloc.namespace, workload, PodKind.TENSOR_FUSION, alloc.pool or None,
        alloc.gpu_count, alloc.tflops_request, alloc.tflops_limit,
        alloc.compute_milli_percent_request, alloc.compute_milli_percent_limit,
        alloc.vram_request, alloc.vram_limit, ISOLATION.get(alloc.isolation, Isolation.SOFT),
        alloc.gpu_model or None, alloc.vendor or None, alloc.qos, alloc.gpu_indices,
    )


def native_request(name: str, namespace: str, workload: str, pod: Mapping[str, Any],
                   resources: GpuResources,
                   hami_shares: frozenset[str] = HAMI_SHARES) -> PodRequest | None:
    """A device-plugin pod for the pod's native GPU limits, and the cards HAMi's webhook
    gives a container that asks only for a HAMi share (one of ``hami_shares``, by default
    the chart's names); None when it asks for no GPU."""
    found = native_gpus(pod, resources)
    count = found.count + sum(n for _, n in hami_default_gpus(pod, hami_shares))
    if count <= 0:
        return None
    return PodRequest(name, namespace, workload, PodKind.DEVICE_PLUGIN, count=count,
                      vendor=found.vendor or None)
