"""The operator's objects as the webhook reads them (NexusGPU/tensor-fusion
api/v1/, internal/utils/reconcile.go:265-285, internal/webhook/v1/tf_parser.go:40-225).

Input is what ``kubectl get providerconfig,workloadprofile,gpuresourcequota,
gpupool,gpu -A -o yaml`` prints (a ``kind: List``), or the same objects among
the manifests. Read: ProviderConfig ``spec.{vendor, inUseResourceNames}``;
WorkloadProfile ``spec`` (resources, qos, sidecarWorker, gpuCount, gpuModel,
vendor, partitionTemplateId, replicas, gangScheduling.minMembers); the
namespace's first GPUResourceQuota by name (the API lists by name; the
webhook takes item 0) for ``spec.single.default{Requests,Limits}``; GPUPool
``is-default-pool``, ``spec.defaultUsingLocalGPU`` and
``spec.qosConfig.defaultQoS``; GPU ``status.gpuModel`` → ``status.capacity``
(the allocator's model capacity map, ``gpuallocator.go:2359``, which
``dedicated-gpu`` reads).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from tfpolicy.admission.config import ModelCapacity, Pool, ProfileSpec, QuotaDefaults
from tfpolicy.admission.resources import Resources
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.gpus.resources import Provider
from tfpolicy.records import Record, field

DEFAULT_POOL_ANNOTATION = "tensor-fusion.ai/is-default-pool"
T = TypeVar("T")
KINDS = frozenset({"ProviderConfig", "WorkloadProfile", "GPUResourceQuota", "GPUPool", "GPU"})
GROUP = "tensor-fusion.ai/"


def is_operator_object(obj: Mapping[str, Any]) -> bool:
    """One of the operator's objects this simulation reads (``KINDS``, TensorFusion's group)."""
    return obj.get("kind") in KINDS and str(obj.get("apiVersion", "")).startswith(GROUP)


class OperatorObjects(Record):
    providers: tuple[Provider, ...] = ()
    profiles: dict[tuple[str, str], ProfileSpec] = field(default_factory=dict)
    quotas: dict[str, QuotaDefaults] = field(default_factory=dict)
    pools: tuple[Pool, ...] = ()
    gpu_models: dict[str, ModelCapacity] = field(default_factory=dict)


class Found(Record):
    """One operator object and the file it came from."""

    file: str
    obj: Mapping[str, Any]

    @property
    def name(self) -> str:
        return str(_map(self.obj.get("metadata")).get("name") or "")


def operator_objects(found: Iterable[Found], namespace: str) -> OperatorObjects:
    """Read the objects; a malformed field is bad input (exit 2) located at its file."""
    by_kind: dict[str, list[Found]] = {k: [] for k in KINDS}
    for item in sorted(found, key=lambda f: f.name):
        by_kind[str(item.obj.get("kind"))].append(item)
    quotas: dict[str, QuotaDefaults] = {}
    for item in by_kind["GPUResourceQuota"]:
        quotas.setdefault(_namespace(item, namespace), _guard(item, _quota))
    models: dict[str, ModelCapacity] = {}
    for item in by_kind["GPU"]:
        model = _guard(item, _model)
        if model is not None:
            models.setdefault(*model)
    return OperatorObjects(
        providers=tuple(_guard(i, _provider) for i in by_kind["ProviderConfig"]),
        profiles={(_namespace(i, namespace), i.name): _guard(i, _profile)
                  for i in by_kind["WorkloadProfile"]},
        quotas=quotas,
        pools=tuple(_guard(i, _pool) for i in by_kind["GPUPool"]),
        gpu_models=models,
    )


def _guard(item: Found, read: Callable[[Found], T]) -> T:
    try:
        return read(item)
    except (TfpolicyError, QuantityError) as exc:
        kind = item.obj.get("kind")
        raise TfpolicyError(f"{kind} {item.name!r}: {exc}", file=item.file) from None


def _provider(item: Found) -> Provider:
    spec = _map(item.obj.get("spec"))
    names = spec.get("inUseResourceNames") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TfpolicyError("spec.inUseResourceNames must be a list of names")
    return Provider(item.name, str(spec.get("vendor") or ""), tuple(names))


def _profile(item: Found) -> ProfileSpec:
    spec = _map(item.obj.get("spec"))
    resources = _map(spec.get("resources"))
    req, lim = _map(resources.get("requests")), _map(resources.get("limits"))
    gang = spec.get("gangScheduling")
    return ProfileSpec(
        resources=Resources(_qty(req, "tflops"), _qty(lim, "tflops"), _qty(req, "vram"),
                            _qty(lim, "vram"), _qty(req, "compute"), _qty(lim, "compute")),
        qos=str(spec.get("qos") or ""), sidecar_worker=spec.get("sidecarWorker") is True,
        gpu_count=_int(spec, "gpuCount") or 0, gpu_model=str(spec.get("gpuModel") or ""),
        vendor=str(spec.get("vendor") or ""),
        partition_id=str(spec.get("partitionTemplateId") or ""),
        replicas=_int(spec, "replicas"),
        gang=None if gang is None else _int(_map(gang), "minMembers") or 0,
    )


def _quota(item: Found) -> QuotaDefaults:
    single = _map(_map(item.obj.get("spec")).get("single"))
    req, lim = _map(single.get("defaultRequests")), _map(single.get("defaultLimits"))
    return QuotaDefaults(_qty(req, "tflops"), _qty(req, "vram"), _qty(lim, "tflops"),
                         _qty(lim, "vram"))


def _pool(item: Found) -> Pool:
    meta, spec = _map(item.obj.get("metadata")), _map(item.obj.get("spec"))
    local = spec.get("defaultUsingLocalGPU")
    if local is not None and not isinstance(local, bool):
        raise TfpolicyError("spec.defaultUsingLocalGPU must be true or false")
    default = _map(meta.get("annotations")).get(DEFAULT_POOL_ANNOTATION) == "true"
    qos = str(_map(spec.get("qosConfig")).get("defaultQoS") or "")
    return Pool(item.name, default, local, qos)


def _model(item: Found) -> tuple[str, ModelCapacity] | None:
    status = _map(item.obj.get("status"))
    capacity = _map(status.get("capacity"))
    model = status.get("gpuModel")
    if not model or not capacity:
        return None
    return str(model), ModelCapacity(_qty(capacity, "tflops"), _qty(capacity, "vram"))


def _namespace(item: Found, default: str) -> str:
    return str(_map(item.obj.get("metadata")).get("namespace") or default)


# Kubernetes bounds a Quantity's digits and exponent; a huge exponent must not
# reach exact arithmetic (tfpolicy.gpus.quantity), so such text is refused up front.
_HUGE = re.compile(r"[eE][+-]?0*[0-9]{4,}")
_MAX_QUANTITY = 64


def _qty(block: Mapping[str, Any], name: str) -> str:
    raw = block.get(name)
    if raw is None or raw == "":
        return ""
    text = str(raw) if not isinstance(raw, bool) else "?"
    if len(text) > _MAX_QUANTITY or _HUGE.search(text):
        raise QuantityError(f"{name}: quantity out of range")
    parse_quantity(text)  # raises QuantityError with the reason
    return text


def _int(block: Mapping[str, Any], name: str) -> int | None:
    raw = block.get(name)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < 2**31:
        raise TfpolicyError(f"spec.{name} must be a non-negative integer")
    return raw


def _map(raw: Any) -> Mapping[str, Any]:
    return raw if isinstance(raw, Mapping) else {}
