"""Native GPU resources on the pod: API defaulting, detection, migration counts.

NexusGPU/tensor-fusion internal/utils/reconcile.go:200-212 (``HasGPUResourceRequest``),
internal/webhook/v1/tf_parser.go:427-600 (native limits → gpu-count), pod_webhook.go:645-653
(their removal); the API server defaults requests from limits before admission
(kubernetes/kubernetes pkg/apis/core/v1/defaults.go, SetDefaults_Pod).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from tfpolicy.gpus.quantity import QuantityError, resource_quantity, served
from tfpolicy.gpus.resources import (
    HAMI_CORES,
    HAMI_DEFAULT_GPUS,
    HAMI_MEMORY,
    HAMI_MEMORY_PERCENT,
    GpuResources,
)
from tfpolicy.records import Record

_UINT32_MAX = 2**32 - 1
_INT = re.compile(r"([+-]?)0*([0-9]+)")


def containers(pod: Mapping[str, Any], field: str = "containers") -> list[dict[str, Any]]:
    """The pod's (init) containers, tolerating absent or null lists and a spec that is no
    mapping (the stages' located error; here it holds nothing)."""
    spec = pod.get("spec")
    if not isinstance(spec, Mapping):
        return []
    return [c for c in spec.get(field) or [] if isinstance(c, dict)]


def default_requests(pod: dict[str, Any]) -> None:
    """Copy every limit without a request into requests, in place.

    Kubernetes' ``SetDefaults_Pod`` does this for every resource of every
    container and init container of a Pod (not of a template), before any
    webhook runs (SetDefaults_Pod); the GPU check needs the requests map.
    """
    for field in ("initContainers", "containers"):
        for container in containers(pod, field):
            resources = container.get("resources") or {}
            limits = resources.get("limits")
            if not isinstance(limits, dict) or not limits:
                continue
            requests = resources.get("requests")
            requests = dict(requests) if isinstance(requests, dict) else {}
            for name, value in limits.items():
                requests.setdefault(name, value)
            container["resources"] = {**resources, "requests": requests}


def has_gpu_request(pod: Mapping[str, Any], names: GpuResources) -> bool:
    """A container (not an init container) with a non-nil requests map asks for a GPU."""
    for container in containers(pod):
        resources = container.get("resources") or {}
        if not isinstance(resources.get("requests"), dict):
            continue
        for section in ("requests", "limits"):
            if any(_positive(v) for k, v in _items(resources.get(section)) if k in names):
                return True
    return False


class NativeGpus(Record):
    """What the webhook takes from native GPU limits (tf_parser.go:427-600)."""

    count: int
    per_container: tuple[tuple[str, int], ...]  # last resource name wins per container
    containers: tuple[str, ...]  # one entry per counted resource, in pod order
    vendor: str

    @property
    def found(self) -> bool:
        return bool(self.containers)


def native_gpus(pod: Mapping[str, Any], names: GpuResources) -> NativeGpus:
    """Sum the integer GPU limits of every container; MIG counts as whole GPUs."""
    count, per_container, hits, vendor = 0, {}, [], ""
    for container in containers(pod):
        name = str(container.get("name", ""))
        limits = (container.get("resources") or {}).get("limits")
        for resource, value in _items(limits):
            number = _atoi(value) if resource in names else None
            if number is None:
                continue  # the webhook only logs an unusable value
            count += number
            per_container[name] = number
            hits.append(name)
            vendor = vendor or names.vendor(resource)
    return NativeGpus(count, tuple(per_container.items()), tuple(hits), vendor)


# HAMi (Project-HAMi/HAMi at 4707fb02) pkg/device/nvidia/device.go:398-415,
# mutateContainerResource: a container whose *limits* hold gpucores, gpumem or
# gpumem-percentage but not the count name (nvidia.com/gpu, config.go:301) gets
# defaultGPUNum of it (1 in the chart); requests and the priority resource do not count.
# The chart may rename the shares (the policy's `spec.hami` says so, read by the caller)
# and the count too (value `resourceName`), which tfpolicy does not model: the count
# stays the chart's.
_HAMI_COUNT = "nvidia.com/gpu"
HAMI_SHARES = frozenset({HAMI_CORES, HAMI_MEMORY, HAMI_MEMORY_PERCENT})


def hami_default_gpus(pod: Mapping[str, Any],
                      shares: frozenset[str]) -> tuple[tuple[str, int], ...]:
    """Per container, the GPUs HAMi's webhook adds to one whose limits ask only for a HAMi
    share (one of ``shares``): under HAMi (and the device plugin it wraps) the pod holds
    those cards."""
    found = []
    for container in containers(pod):
        names = {name for name, _ in _items((container.get("resources") or {}).get("limits"))}
        if names & shares and _HAMI_COUNT not in names:
            found.append((str(container.get("name", "")), HAMI_DEFAULT_GPUS))
    return tuple(found)


def gpu_resource_names(container: Mapping[str, Any], names: GpuResources) -> list[str]:
    """The recognised GPU resource names in a container's requests or limits."""
    resources = container.get("resources") or {}
    found = {k for section in ("requests", "limits") for k, _ in _items(resources.get(section))}
    return sorted(k for k in found if k in names)


def go_int(text: str) -> int | None:
    """A decimal integer as Go parses one (ASCII digits, optional sign), else ``None``.

    Past 20 significant digits the value is out of any Go range; it is clamped
    so that ``int()`` never sees thousands of digits.
    """
    found = _INT.fullmatch(text)
    if found is None:
        return None
    sign, digits = found.groups()
    value = int(digits) if len(digits) <= 20 else 10**20
    return -value if sign == "-" else value


def _atoi(value: Any) -> int | None:
    """Go's strconv.Atoi on the quantity's string form (tf_parser.go:454), the text the API
    server serves (``"1000m"`` is served as ``"1"``, a count; ``"1k"`` is none)."""
    try:
        number = go_int(served(value))
    except QuantityError:
        return None
    return number if number is not None and 0 < number <= _UINT32_MAX else None


def _positive(value: Any) -> bool:
    try:
        return resource_quantity(value) > 0
    except QuantityError:
        return False


def _items(section: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(section, dict):
        for k, v in section.items():
            yield str(k), v
