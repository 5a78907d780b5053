"""Why a GPU request the engine did not migrate was not, and what to do: the findings of
:func:`tfpolicy.workloads.finder.unmigrated`, one per request, each naming its rule
(docs/kinds.md lists the rules).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import format_path
from tfpolicy.findings import Severity
from tfpolicy.gpus.quantity import resource_problem
from tfpolicy.gpus.vendors import accelerator, provider_text
from tfpolicy.workloads import dra
from tfpolicy.workloads.declare import declaration
from tfpolicy.workloads.requests import DRA_CLAIM, DRA_POD, GpuRequest, Known, Unmigrated

_DOC = "docs/kinds.md"
# envsubst/shell (`$GPUS`, `${GPUS}`) or Go template (`{{ .gpus }}`) syntax left unrendered.
_PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_]|\{\{")
# A resource name's domain as the API server takes it: a DNS-1123 subdomain, lower case
# (kubernetes/kubernetes pkg/apis/core/validation/validation.go, validateResourceName:
# IsQualifiedName).
_DOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# Why TensorFusion cannot take a GPU a pod holds through DRA: its webhook reads container
# resources only (and gives a pod it takes over GPUs of its own: admission.traps says so).
_NO_DRA = ("TensorFusion takes GPUs from container resources only, never from resource claims "
           "(NexusGPU/tensor-fusion internal/utils/reconcile.go:200-212, internal/webhook/v1/"
           "tf_parser.go:444-457)")
_DRA_DOC = f"{_DOC}, GPUs through DRA"
# The device-plugin resource a vendor's GPUs have, for "ask it there instead".
_PLUGIN = {"NVIDIA": "nvidia.com/gpu", "AMD": "amd.com/gpu", "Intel": "gpu.intel.com/i915",
           "Habana": "habana.ai/gaudi"}


def why(obj: Mapping[str, Any], request: GpuRequest, configured: bool,
        kind_known: bool) -> Unmigrated:
    """The reason for a resource request: not an object, a placeholder, a name or value the
    API server refuses, a vendor no provider lists, an init container, or the kind."""
    name, where = request.resource, format_path(request.path)
    if not _is_object(obj):
        return Unmigrated(request.path, "gpu-not-an-object", (
            f"not migrated: {name} at {where} is in a document with no apiVersion and kind, "
            "not a Kubernetes object (a batch system's job file, a values file): tfpolicy "
            "migrates only the pods of Kubernetes objects"), Severity.INFO)
    if isinstance(request.value, str) and _PLACEHOLDER.search(request.value):
        return Unmigrated(request.path, "gpu-placeholder", (
            f"not migrated: {name}: {_shown(request.value)} at {where} is a placeholder "
            "or unrendered value, not a quantity; render the manifest first"))
    refused = _refused(request)
    if refused is not None:
        return refused
    if not configured:
        return _vendor(request)
    if "initContainers" in request.path:
        return Unmigrated(request.path, "gpu-init-container", (
            f"not migrated: {name} at {where} is asked for by an init container; "
            "TensorFusion takes over the GPUs of a pod's containers only"))
    return _kind(obj, request, kind_known)


def _refused(request: GpuRequest) -> Unmigrated | None:
    """An error where the API server refuses the name or the value."""
    name, where = request.resource, format_path(request.path)
    domain = name.partition("/")[0]
    if "/" in name and not _DOMAIN.fullmatch(domain):
        return Unmigrated(request.path, "invalid-resource-name", (
            f"{name} at {where} is not a resource name Kubernetes takes: its domain "
            f"{_shown(domain)} must be a lower-case DNS subdomain, so the API server refuses "
            f"this object; write it as {domain.lower()}/{name.partition('/')[2]}"),
            Severity.ERROR)
    problem = resource_problem(request.value)
    if problem:
        return Unmigrated(request.path, "invalid-quantity", (
            f"{name}: {_shown(request.value)} at {where} {problem} (kubernetes/kubernetes "
            "pkg/apis/core/validation/validation.go, ValidateResourceQuantityValue)"),
            Severity.ERROR)
    return None


def _vendor(request: GpuRequest) -> Unmigrated:
    name, where = request.resource, format_path(request.path)
    found = accelerator(name)
    if found is not None and found.guessed:
        return Unmigrated(request.path, "gpu-vendor-unknown", (
            f"not migrated: {name} at {where} is named like an accelerator's, under a domain "
            "of no vendor tfpolicy knows: is this an accelerator? If TensorFusion should take "
            "it, declare it in operatorConfig (its vendor's ProviderConfig, "
            "inUseResourceNames) or the policy's gpuResources"), Severity.INFO)
    vendor = found.vendor if found else "GPU"
    return Unmigrated(request.path, "gpu-vendor-not-configured", (
        f"not migrated: {name} at {where} names a device of vendor {vendor}, which no "
        f"configured TensorFusion provider lists: {provider_text(vendor)}"))


def _kind(obj: Mapping[str, Any], request: GpuRequest, kind_known: bool) -> Unmigrated:
    name, where = request.resource, format_path(request.path)
    kind = f"{obj.get('kind')} ({obj.get('apiVersion')})"
    hint = declaration(obj, request.path)
    if not kind_known:
        return Unmigrated(request.path, "unknown-kind", (
            f"not migrated: {kind} is a kind tfpolicy does not know, so {name} at {where} "
            f"passes untouched; {hint}"))
    return Unmigrated(request.path, "kind-not-migrated", (
        f"not migrated: tfpolicy knows no field of {kind} that carries pod labels and "
        f"annotations to the pod asking for {name} at {where}; {hint}"))


def other(obj: Mapping[str, Any], request: GpuRequest, known: Known) -> list[Unmigrated]:
    """A pod's DRA claim, a claim's device request, or a custom resource's GPU profile."""
    if request.kind == DRA_POD:
        return _pod_claim(obj, request.value, known.claims)
    if request.kind == DRA_CLAIM:
        return _claim_request(obj, request.value, known.claims)
    if known.kind_known or not _is_object(obj):
        return []  # a known kind's fields are its rules'; outside objects only containers
    where = format_path(request.path)
    return [Unmigrated(request.path, "gpu-profile", (
        f"not migrated: {where}: {_shown(request.value)} in {obj.get('kind')} "
        f"({obj.get('apiVersion')}), a kind tfpolicy does not know, looks like GPUs asked "
        "for by a profile or a count, which its operator turns into the pods' resources: "
        f"tfpolicy cannot migrate it; read the operator's source, and migrate the pods it "
        f"makes if their labels and annotations can be set ({_DOC})"), Severity.INFO)]


def _pod_claim(obj: Mapping[str, Any], entry: dra.PodClaim,
               claims: dra.ClaimIndex | None) -> list[Unmigrated]:
    what = f"{entry.kind} {entry.claim!r} (claim {entry.name!r})"
    claim = None if claims is None else claims.find(
        entry.kind, _namespace(obj, claims.namespace), entry.claim)
    if claim is None:
        scope = "this document" if claims is None else "this input"
        return [Unmigrated(entry.path, "gpu-dra-claim-missing", (
            f"GPU devices may come from {what}, which {scope} does not hold: if it asks a "
            f"GPU class (gpu.nvidia.com, mig.nvidia.com, gpu.amd.com, gpu.intel.com), the "
            f"pod keeps those GPUs with the DRA driver, since {_NO_DRA} ({_DRA_DOC})"),
            Severity.INFO)]
    asks = [a for a in claim.asks if _gpu(a, claims) is not None]
    if not asks:
        return []
    return [Unmigrated(entry.path, "gpu-dra-claim", (
        f"not migrated: this pod holds {dra.devices_text(asks)} through {what}, which stay "
        f"with the DRA driver, since {_NO_DRA}; its claim's finding says what to do "
        f"({_DRA_DOC})"))]


def _claim_request(obj: Mapping[str, Any], asks: tuple[dra.DeviceAsk, ...],
                   claims: dra.ClaimIndex | None) -> list[Unmigrated]:
    found = [(a, c) for a in asks if (c := _gpu(a, claims)) is not None]
    if not found:
        return []
    first, kind = asks[0], obj.get("kind")
    meta = obj.get("metadata")
    name = str(meta.get("name") or "") if isinstance(meta, Mapping) else ""
    request = first.request.partition("/")[0]
    label = f"{kind} {name!r}" + (f" request {request!r}" if request else "")
    asked = dra.devices_text(asks)
    if first.alternative:
        asked = f"the first available of: {asked}"
    classes = "; ".join(dict.fromkeys(f"{c.vendor or '?'} GPUs: {c.source}" for _, c in found))
    if all(c.guessed for _, c in found):
        return [Unmigrated(first.path, "gpu-dra-class-unknown", (
            f"{label} asks {asked}, a class named like a GPU's that "
            f"no GPU DRA driver tfpolicy knows installs: if it is one, pods holding this claim "
            f"keep those GPUs with the DRA driver, since {_NO_DRA} ({_DRA_DOC})"),
            Severity.INFO)]
    vendor = next(c.vendor for _, c in found if not c.guessed)
    plugin = _PLUGIN.get(vendor, "its device plugin's resource")
    return [Unmigrated(first.path, "gpu-dra-claim", (
        f"not migrated: {label} asks {asked} ({classes}): the "
        f"pods holding this claim keep these GPUs with the DRA driver, since {_NO_DRA}; to "
        f"migrate such a pod, ask {plugin}: N in its containers' resources instead of the "
        f"claim ({_DRA_DOC})"))]


def _gpu(ask: dra.DeviceAsk, claims: dra.ClaimIndex | None) -> dra.GpuClass | None:
    return dra.gpu_class(ask.device_class, claims)


def _is_object(obj: Mapping[str, Any]) -> bool:
    return bool(obj.get("apiVersion")) and bool(obj.get("kind"))


def _namespace(obj: Mapping[str, Any], default: str) -> str:
    meta = obj.get("metadata")
    value = meta.get("namespace") if isinstance(meta, Mapping) else None
    return value if isinstance(value, str) and value else default


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 34 else text[:33] + "…"
