"""Per-GPU resources and GPU count from annotations and native limits
(NexusGPU/tensor-fusion internal/webhook/v1/tf_parser.go:427-600).

Mirrors ``parseGPUResourcesAnnotations``: an explicit ``gpu-count`` stops the
native-limit scan; a native hit on a non-shared pod sets compute-percent 100
(request inherits it) and reserves no VRAM (tf_parser.go:463-468); shared is count-only
(the same lines); TFLOPS annotations win over compute-percent ones; a missing request
takes its limit. Quantities stay strings so they can be written back in
canonical form; an unparsable annotation is treated as absent, as the webhook
does.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.admission_records import Rejection
from tfpolicy.admission.native import NativeGpus, go_int, native_gpus
from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.records import Record, replace

_INT32 = range(-(2**31), 2**31)
_MAX_GPUS = 128


class Resources(Record):
    """Per-GPU requests and limits; ``""`` means zero / unset."""

    tflops_request: str = ""
    tflops_limit: str = ""
    vram_request: str = ""
    vram_limit: str = ""
    percent_request: str = ""
    percent_limit: str = ""


class GpuSpec(Record):
    resources: Resources
    count: int
    native: NativeGpus | None  # None when gpu-count was annotated (limits not scanned)
    indices: tuple[int, ...]


def amount(text: str) -> Fraction:
    """The value of a resource string; ``""`` is zero."""
    return parse_quantity(text) if text else Fraction(0)


def is_zero(text: str) -> bool:
    return amount(text) == 0


def quantity_annotation(annotations: Mapping[str, str], name: str) -> str | None:
    """The annotation when it is a non-empty valid quantity; else absent."""
    text = annotations.get(name, "")
    if not isinstance(text, str) or not text:
        return None
    try:
        parse_quantity(text)
    except QuantityError:
        return None
    return text


def parse_int32(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 32)``; ``None`` when it fails."""
    value = go_int(text)
    return value if value is not None and value in _INT32 else None


def go_parse_error(text: str) -> str:
    """The ``strconv.ParseInt`` error text Go would wrap."""
    reason = "value out of range" if go_int(text) is not None else "invalid syntax"
    return f'strconv.ParseInt: parsing "{text}": {reason}'


def gpu_spec(
    pod: Mapping[str, Any], annotations: Mapping[str, str], isolation: str,
    base: Resources, names: GpuResources, pod_name: str, profile_count: int = 0,
) -> GpuSpec:
    """Count, native scan and per-GPU resources, raising the webhook's errors.

    A WorkloadProfile's ``gpuCount`` stops the native scan like the annotation.
    """
    native: NativeGpus | None = None
    count = profile_count
    resources = base
    if keys.GPU_COUNT in annotations:
        count = _annotated_count(str(annotations[keys.GPU_COUNT]))
    elif not profile_count:
        native = native_gpus(pod, names.in_use())
        count = native.count
        if native.found and isolation != "shared":
            resources = replace(resources, percent_limit="100")
    resources = merge_annotations(resources, annotations, bool(native and native.found))
    indices = _indices(annotations, pod_name)
    count = len(indices) or count or 1
    if not 1 <= count <= _MAX_GPUS:
        raise Rejection(f"invalid gpuCount {count}: must be in [1, 128]")
    return GpuSpec(resources, count, native, indices)


def _annotated_count(text: str) -> int:
    value = parse_int32(text)
    if value is None:
        raise Rejection(f"invalid gpuCount value: {go_parse_error(text)}")
    if not 1 <= value <= _MAX_GPUS:
        raise Rejection(f"invalid gpuCount value {value}: must be in [1, 128]")
    return value


def merge_annotations(r: Resources, ann: Mapping[str, str], migrated: bool) -> Resources:
    """Apply the TFLOPS / VRAM / compute-percent annotations over ``r``."""
    tl = quantity_annotation(ann, keys.TFLOPS_LIMIT)
    if tl is not None:
        r = replace(r, tflops_limit=tl, percent_limit="" if migrated else r.percent_limit)
    r = replace(r, vram_limit=quantity_annotation(ann, keys.VRAM_LIMIT) or r.vram_limit)
    r = _tflops_request(r, ann, migrated, tl is not None)
    vr = quantity_annotation(ann, keys.VRAM_REQUEST)
    if vr is not None or is_zero(r.vram_request):
        r = replace(r, vram_request=vr if vr is not None else r.vram_limit)
    r = _percent(r, ann, tl is not None)
    if not is_zero(r.tflops_request) and not is_zero(r.percent_request):
        raise Rejection(
            "tflops- and computePercent request are mutually exclusive, please specify only one"
        )
    if not is_zero(r.tflops_limit) and not is_zero(r.percent_limit):
        raise Rejection(
            "tflops- and computePercent limit are mutually exclusive, please specify only one"
        )
    return r


def _tflops_request(r: Resources, ann: Mapping[str, str], migrated: bool, tl: bool) -> Resources:
    tr = quantity_annotation(ann, keys.TFLOPS_REQUEST)
    if tr is not None:
        # An explicit TFLOPS request drops the percent request, and the
        # migrated 100 % limit unless a TFLOPS limit replaced it already.
        limit = "" if migrated and not tl else r.percent_limit
        return replace(r, tflops_request=tr, percent_request="", percent_limit=limit)
    if is_zero(r.tflops_request):
        return replace(
            r, tflops_request=r.tflops_limit, percent_request="" if tl else r.percent_request
        )
    return r


def _percent(r: Resources, ann: Mapping[str, str], tl: bool) -> Resources:
    has_tr = quantity_annotation(ann, keys.TFLOPS_REQUEST) is not None
    pl = quantity_annotation(ann, keys.PERCENT_LIMIT)
    if pl is not None:
        r = replace(r, percent_limit="" if tl else pl)
    pr = quantity_annotation(ann, keys.PERCENT_REQUEST)
    if pr is not None:
        return replace(r, percent_request="" if has_tr or tl else pr)
    inherit = is_zero(r.tflops_request) and is_zero(r.percent_request)
    if inherit and not tl and not is_zero(r.percent_limit):
        return replace(r, percent_request=r.percent_limit)
    return r


def parse_indices(text: str) -> tuple[int, ...] | None:
    """``ParseIndicesAnnotation`` (``internal/utils/resource.go:108-130``): ``None`` if invalid.

    Each comma-separated token is trimmed (Go's ASCII/Unicode space) and must
    be a decimal integer (``strconv.Atoi``: ASCII digits, optional sign) in
    0..MaxInt32. ``str.isdigit`` would accept ``"²"``; the regex does not.
    """
    if not text:
        return ()
    found = []
    for raw in text.split(","):
        value = go_int(raw.strip())
        if value is None or not 0 <= value < 2**31:
            return None
        found.append(value)
    return tuple(found)


def _indices(ann: Mapping[str, str], pod_name: str) -> tuple[int, ...]:
    found = parse_indices(str(ann.get(keys.GPU_INDICES, "")))
    if found is None:
        raise Rejection(f"tensor-fusion.ai/gpu-indices annotation is not valid for Pod {pod_name}")
    return found
