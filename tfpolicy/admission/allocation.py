"""The scheduler's allocation request for an admitted pod (reference §5.1).

Composed from the annotations the webhook wrote, like
``ComposeAllocationRequest``: per-GPU values, count default 1, qos default
medium, isolation default soft, workload from the ``workload`` label.
"""

from __future__ import annotations

from collections.abc import Mapping

from tfpolicy.admission import keys
from tfpolicy.admission.records import AllocationRequest
from tfpolicy.quantity import is_quantity, milli, parse_quantity, whole

_MIB = 2**20


def allocation_request(
    annotations: Mapping[str, str], labels: Mapping[str, str], namespace: str,
) -> AllocationRequest:
    """Plain integers: milli-TFLOPS, whole percent and MiB, each rounded up."""
    isolation = annotations.get(keys.ISOLATION, "soft")
    return AllocationRequest(
        pool=annotations.get(keys.GPUPOOL, ""),
        namespace=namespace,
        workload=labels.get(keys.WORKLOAD, ""),
        gpu_count=int(annotations.get(keys.GPU_COUNT, "1")),
        tflops_request=_milli(annotations.get(keys.TFLOPS_REQUEST)),
        tflops_limit=_milli(annotations.get(keys.TFLOPS_LIMIT)),
        compute_percent_request=_whole(annotations.get(keys.PERCENT_REQUEST)),
        compute_percent_limit=_whole(annotations.get(keys.PERCENT_LIMIT)),
        vram_request=_mib(annotations.get(keys.VRAM_REQUEST)),
        vram_limit=_mib(annotations.get(keys.VRAM_LIMIT)),
        isolation=isolation,
        qos=annotations.get(keys.QOS, "medium"),
        gpu_model=annotations.get(keys.GPU_MODEL, ""),
        vendor=annotations.get(keys.VENDOR, ""),
        gpu_indices=_indices(annotations.get(keys.GPU_INDICES, "")),
        partition_id=annotations.get(keys.PARTITION_ID, "") if isolation == "partitioned" else "",
        is_local=annotations.get(keys.IS_LOCAL_GPU, keys.TRUE) == keys.TRUE,
    )


# A user annotation the webhook ignored as unparsable stays on the pod; the
# scheduler then reads it as zero (reference §1.2 "silently treated as absent").
def _milli(text: str | None) -> int:
    return milli(text) if is_quantity(text) and text else 0


def _whole(text: str | None) -> int:
    return whole(text) if is_quantity(text) and text else 0


def _mib(text: str | None) -> int:
    if not text or not is_quantity(text):
        return 0
    value = parse_quantity(text) / _MIB
    return -(-value.numerator // value.denominator)


def _indices(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(",")) if text else ()
