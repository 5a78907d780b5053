"""The scheduler's allocation request for an admitted pod (NexusGPU/tensor-fusion
internal/utils/resource.go:132, ComposeAllocationRequest).

Composed from the annotations the webhook wrote, like
``ComposeAllocationRequest``: per-GPU values, count default 1, qos default
medium, isolation default soft, workload from the ``workload`` label. When
both a TFLOPS and a compute-percent annotation parse on one side (request or
limit), ``GetGPUResource`` errs and that side is read as all zero, VRAM
included: the scheduler reserves nothing for it (``config.go:201-205``,
``resource.go:134-141``). The webhook clears the percent only in its own
record, so a user's pair of annotations survives admission and does this.
"""

from __future__ import annotations

from collections.abc import Mapping

from tfpolicy.admission import keys
from tfpolicy.admission.admission_records import AllocationRequest
from tfpolicy.gpus.quantity import is_quantity, milli, parse_quantity

_MIB = 2**20


def allocation_request(
    annotations: Mapping[str, str], labels: Mapping[str, str], namespace: str,
) -> AllocationRequest:
    """Plain integers: milli-TFLOPS, whole percent and MiB, each rounded up."""
    isolation = annotations.get(keys.ISOLATION, "soft")
    request, limit = (_side(annotations, keys.TFLOPS_REQUEST, keys.PERCENT_REQUEST,
                            keys.VRAM_REQUEST),
                      _side(annotations, keys.TFLOPS_LIMIT, keys.PERCENT_LIMIT, keys.VRAM_LIMIT))
    req, lim = request or (0, 0, 0), limit or (0, 0, 0)
    return AllocationRequest(
        pool=annotations.get(keys.GPUPOOL, ""),
        namespace=namespace,
        workload=labels.get(keys.WORKLOAD, ""),
        gpu_count=int(annotations.get(keys.GPU_COUNT, "1")),
        tflops_request=req[0], tflops_limit=lim[0],
        compute_milli_percent_request=req[1], compute_milli_percent_limit=lim[1],
        vram_request=req[2], vram_limit=lim[2],
        isolation=isolation,
        qos=annotations.get(keys.QOS, "medium"),
        gpu_model=annotations.get(keys.GPU_MODEL, ""),
        vendor=annotations.get(keys.VENDOR, ""),
        gpu_indices=_indices(annotations.get(keys.GPU_INDICES, "")),
        partition_id=annotations.get(keys.PARTITION_ID, "") if isolation == "partitioned" else "",
        is_local=annotations.get(keys.IS_LOCAL_GPU, keys.TRUE) == keys.TRUE,
        unreadable=tuple(name for name, side in (("request", request), ("limit", limit))
                         if side is None),
    )


def _side(annotations: Mapping[str, str], tflops: str, percent: str,
          vram: str) -> tuple[int, int, int] | None:
    """(milli-TFLOPS, milli-percent, MiB) of one side; None when both compute forms parse."""
    t, p = annotations.get(tflops), annotations.get(percent)
    if _parses(t) and _parses(p):
        return None
    return _milli(t), _milli(p), _mib(annotations.get(vram))


def _parses(text: str | None) -> bool:
    return bool(text) and is_quantity(text)


# A user annotation the webhook ignored as unparsable stays on the pod; the
# scheduler then reads it as zero (internal/webhook/v1/tf_parser.go:607-617).
def _milli(text: str | None) -> int:
    return milli(text) if is_quantity(text) and text else 0


def _mib(text: str | None) -> int:
    if not text or not is_quantity(text):
        return 0
    value = parse_quantity(text) / _MIB
    return -(-value.numerator // value.denominator)


def _indices(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(",")) if text else ()
