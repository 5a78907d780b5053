"""GPUs a pod holds through Dynamic Resource Allocation: its ``resourceClaims``, resolved to
the ResourceClaims and ResourceClaimTemplates of an input, and their device requests
(docs/kinds.md, "GPUs through DRA").

A pod names claims in ``spec.resourceClaims`` (kubernetes/api core/v1/types.go:4761-4803,
``resourceClaimName`` or ``resourceClaimTemplateName``; before Kubernetes 1.31 under
``source``). A claim's devices are in ``spec.devices.requests`` (a template's in
``spec.spec``): in ``resource.k8s.io`` v1alpha3 and v1beta1 a request names its
``deviceClassName``, ``allocationMode`` and ``count`` itself (v1beta1/types.go:1092-1213);
in v1beta2 and v1 under ``exactly`` (v1/types.go:1254-1361), and either may instead list
``firstAvailable`` alternatives (v1/types.go:1426-1491). ``allocationMode: All`` takes
every matching device; ``ExactCount`` (the default) takes ``count``, 1 by default.
v1alpha2 (Kubernetes 1.26-1.30) named a ``resourceClassName`` and left the count to the
driver's parameters. Paths below are kubernetes/api@10b39a39.

A device class is a GPU's when it is one the GPU drivers install (:data:`GPU_CLASSES`),
or when a DeviceClass of the input selects a GPU driver (``device.driver == "..."`` in a
CEL selector). TensorFusion takes GPUs from container resources only (its webhook:
NexusGPU/tensor-fusion internal/utils/reconcile.go:200-212, internal/webhook/v1/
tf_parser.go:444-457), never from claims, so such a pod's GPUs stay with the DRA driver.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.records import Record

GROUP = "resource.k8s.io"
CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")

_NV = "NVIDIA/k8s-dra-driver-gpu@22407113 deployments/helm/dra-driver-nvidia-gpu/templates/"
_INTEL = "intel/intel-resource-drivers-for-kubernetes@1da939fa deployments/"


class GpuClass(Record):
    name: str
    vendor: str
    source: str
    guessed: bool = False  # named like a GPU class, with no driver known to select it


# The device classes GPU DRA drivers install, each selecting the driver's devices of a type.
GPU_CLASSES: dict[str, GpuClass] = {c.name: c for c in (
    GpuClass("gpu.nvidia.com", "NVIDIA", _NV + "deviceclass-gpu.yaml:7-11"),
    GpuClass("mig.nvidia.com", "NVIDIA", _NV + "deviceclass-mig.yaml:6-10"),
    GpuClass("vfio.gpu.nvidia.com", "NVIDIA", _NV + "deviceclass-vfio-gpu.yaml:6-10"),
    GpuClass("gpu.amd.com", "AMD",
             "ROCm/k8s-gpu-dra-driver@26224272 helm-charts-k8s/templates/deviceclass.yaml:5-9"),
    GpuClass("gpu.intel.com", "Intel", _INTEL + "gpu/base/device-class.yaml:5-9"),
    GpuClass("gpu-vfio.intel.com", "Intel", _INTEL + "gpu/base/device-class.yaml:17-21"),
    GpuClass("gaudi.intel.com", "Habana", _INTEL + "gaudi/base/device-class.yaml:4-8"),
)}
# Substrings one of which a document holding a pod's claims, or a claim's requests, holds.
MARKERS = ("resourceClaims", "deviceClassName", "resourceClassName")
# The drivers those classes select (NVIDIA's ComputeDomain driver, compute-domain.nvidia.com,
# hands out IMEX channels, not GPUs).
GPU_DRIVERS: dict[str, str] = {"gpu.nvidia.com": "NVIDIA", "gpu.amd.com": "AMD",
                               "gpu.intel.com": "Intel", "gaudi.intel.com": "Habana"}
_DRIVER = re.compile(r"""device\.driver\s*==\s*["']([^"']+)["']""")
_GUESS = re.compile(r"(?:^|[^a-z0-9])v?(?:gpu|npu|mlu|dcu|gcu|xpu)", re.IGNORECASE)


class DeviceAsk(Record):
    """One request of a claim (or one of its ``firstAvailable`` alternatives)."""

    path: Path  # from the claim object's root: the request (of all its alternatives)
    request: str  # its name; ``name/sub`` for an alternative
    device_class: str
    count: int | None  # ``None``: every matching device (``allocationMode: All``), or the
    # v1alpha2 driver's parameters decide
    alternative: bool = False


class Claim(Record):
    kind: str  # ResourceClaim or ResourceClaimTemplate
    namespace: str
    name: str
    asks: tuple[DeviceAsk, ...]


class ClaimIndex(Record):
    """The claims, claim templates and device classes of an input (what :func:`index`
    read), looked up by a pod's namespace and the names it gives."""

    claims: tuple[Claim, ...] = ()
    drivers: tuple[tuple[str, str], ...] = ()  # (DeviceClass name, the driver it selects)
    namespace: str = "default"  # of an object that names none

    def find(self, kind: str, namespace: str, name: str) -> Claim | None:
        return next((c for c in self.claims
                     if (c.kind, c.namespace, c.name) == (kind, namespace, name)), None)

    def driver(self, device_class: str) -> str:
        return next((d for c, d in self.drivers if c == device_class), "")


def gpu_class(name: str, claims: ClaimIndex | None = None) -> GpuClass | None:
    """The GPU class ``name`` is: a driver's own, one an input's DeviceClass makes select a
    GPU driver, or (guessed) one named like a GPU's; ``None`` when it is none of these."""
    known = GPU_CLASSES.get(name)
    if known is not None:
        return known
    driver = claims.driver(name) if claims is not None else ""
    if driver in GPU_DRIVERS:
        return GpuClass(name, GPU_DRIVERS[driver], f"its DeviceClass selects driver {driver}")
    if not driver and _GUESS.search(name):
        return GpuClass(name, "", "its name", guessed=True)
    return None


def claim_of(obj: Mapping[str, Any], namespace: str = "default") -> Claim | None:
    """A ResourceClaim or ResourceClaimTemplate as its device requests, any API version."""
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if kind not in CLAIM_KINDS or not isinstance(api, str) or not api.startswith(GROUP + "/"):
        return None
    base: Path = ("spec", "spec") if kind == "ResourceClaimTemplate" else ("spec",)
    spec = _at(obj, base)
    if not isinstance(spec, Mapping):
        return None
    meta = _map(obj.get("metadata"))
    classic = spec.get("resourceClassName")
    asks = ([DeviceAsk((*base, "resourceClassName"), "", classic, None)]
            if isinstance(classic, str) else list(_requests(spec, (*base, "devices"))))
    return Claim(str(kind), str(meta.get("namespace") or namespace), str(meta.get("name") or ""),
                 tuple(asks))


def _requests(spec: Mapping[str, Any], base: Path) -> Iterator[DeviceAsk]:
    devices = _map(spec.get("devices"))
    items = devices.get("requests")
    for index, request in enumerate(items if isinstance(items, list) else []):
        if not isinstance(request, Mapping):
            continue
        path, name = (*base, "requests", index), str(request.get("name") or "")
        exactly = request.get("exactly")
        alternatives = request.get("firstAvailable")
        if isinstance(exactly, Mapping):
            yield from _ask(exactly, path, name)
        elif isinstance(alternatives, list):
            for sub, item in enumerate(alternatives):
                if isinstance(item, Mapping):
                    yield from _ask(item, path, f"{name}/{item.get('name') or sub}", True)
        else:
            yield from _ask(request, path, name)


def _ask(node: Mapping[str, Any], path: Path, name: str,
         alternative: bool = False) -> Iterator[DeviceAsk]:
    device_class = node.get("deviceClassName")
    if not isinstance(device_class, str) or not device_class:
        return
    count = node.get("count", 1)
    if node.get("allocationMode") == "All":
        amount: int | None = None
    else:
        amount = count if isinstance(count, int) and not isinstance(count, bool) else 1
    yield DeviceAsk(path, name, device_class, amount, alternative)


def driver_of(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """A DeviceClass's name and the driver its CEL selectors require, if one does."""
    if obj.get("kind") != "DeviceClass" or not str(obj.get("apiVersion", "")).startswith(GROUP):
        return None
    selectors = _map(obj.get("spec")).get("selectors")
    for selector in selectors if isinstance(selectors, list) else []:
        expression = _map(_map(selector).get("cel")).get("expression")
        found = _DRIVER.search(expression) if isinstance(expression, str) else None
        if found is not None:
            return str(_map(obj.get("metadata")).get("name") or ""), found.group(1)
    return None


def index(objects: Iterable[Mapping[str, Any]], namespace: str = "default") -> ClaimIndex:
    """The claims, claim templates and DeviceClasses among ``objects`` (an input's)."""
    claims, drivers = [], []
    for obj in objects:
        claim = claim_of(obj, namespace)
        if claim is not None:
            claims.append(claim)
        driver = driver_of(obj)
        if driver is not None:
            drivers.append(driver)
    return ClaimIndex(tuple(claims), tuple(drivers), namespace)


class PodClaim(Record):
    """One entry of a pod's ``resourceClaims``: the claim, or the template of its own claim."""

    path: Path  # the entry, from the object's root
    name: str  # the entry's name, which containers' resources.claims give
    kind: str  # ResourceClaim or ResourceClaimTemplate
    claim: str  # the claim's, or the template's, name


def pod_claims(obj: Any) -> Iterator[PodClaim]:
    """Every ``resourceClaims`` entry of a pod spec anywhere in ``obj`` (a mapping that also
    holds ``containers``): in a template, a Pod, or a kind tfpolicy does not know."""
    stack: list[tuple[Any, Path]] = [(obj, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            entries = node.get("resourceClaims")
            if isinstance(entries, list) and "containers" in node:
                yield from entries_of(entries, (*path, "resourceClaims"))
            stack += [(v, (*path, k)) for k, v in node.items() if isinstance(v, dict | list)]
        elif isinstance(node, list):
            stack += [(v, (*path, i)) for i, v in enumerate(node) if isinstance(v, dict | list)]


def entries_of(entries: list[Any], base: Path) -> Iterator[PodClaim]:
    """The claims of a pod spec's ``resourceClaims`` list at ``base``."""
    for number, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            continue
        source = entry.get("source") if isinstance(entry.get("source"), Mapping) else entry
        assert isinstance(source, Mapping)
        for key, kind in (("resourceClaimName", "ResourceClaim"),
                          ("resourceClaimTemplateName", "ResourceClaimTemplate")):
            name = source.get(key)
            if isinstance(name, str) and name:
                yield PodClaim((*base, number), str(entry.get("name") or ""), kind, name)


class Held(Record):
    """GPU devices a pod holds through one claim: ``claim`` is ``None`` when the input
    does not hold the claim it names (the devices may be GPUs)."""

    entry: PodClaim
    claim: Claim | None
    asks: tuple[tuple[DeviceAsk, GpuClass], ...] = ()

    @property
    def per_pod(self) -> bool:
        """Each pod gets a claim of its own (a template's); else all pods naming the claim
        share its devices, held once whatever the replicas."""
        return self.entry.kind == "ResourceClaimTemplate"

    @property
    def devices(self) -> int | None:
        """The GPUs the claim holds: its requests' counts, a ``firstAvailable`` request's
        first alternative (the one the scheduler prefers); ``None`` when a request takes
        every matching device, or the input lacks the claim."""
        if self.claim is None:
            return None
        total, seen = 0, set()
        for ask, _ in self.asks:
            if ask.path in seen:
                continue  # a later alternative of a request already counted
            seen.add(ask.path)
            if ask.count is None:
                return None
            total += ask.count
        return total


def gpu_devices(pod: Any, namespace: str, claims: ClaimIndex) -> list[Held]:
    """GPU devices the pod spec (or template, or object) ``pod`` holds through DRA claims,
    resolved over the input's ``claims``: each claim that asks a GPU class, with those
    requests, and each claim the input does not hold. A claim of other devices only (an
    IMEX channel, a NIC) is left out."""
    out = []
    for entry in pod_claims(pod):
        claim = claims.find(entry.kind, namespace, entry.claim)
        if claim is None:
            out.append(Held(entry, None))
            continue
        asks = tuple((a, c) for a in claim.asks
                     if (c := gpu_class(a.device_class, claims)) is not None and not c.guessed)
        if asks:
            out.append(Held(entry, claim, asks))
    return out


def devices_text(asks: Iterable[DeviceAsk]) -> str:
    """``2 devices of class gpu.nvidia.com``; alternatives joined with ``or``."""
    return " or ".join(_one(a) for a in asks)


def _one(ask: DeviceAsk) -> str:
    if ask.path[-1:] == ("resourceClassName",):
        return f"devices of class {ask.device_class}, as many as the driver's parameters say"
    if ask.count is None:
        return f"every matching device of class {ask.device_class}"
    noun = "device" if ask.count == 1 else "devices"
    return f"{ask.count} {noun} of class {ask.device_class}"


def _at(node: Any, path: Path) -> Any:
    for step in path:
        if not isinstance(node, Mapping) or step not in node:
            return None
        node = node[step]
    return node


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
