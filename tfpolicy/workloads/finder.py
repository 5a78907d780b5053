"""Every GPU request of an object, found without the registry, and why each one the engine
did not migrate was not (docs/kinds.md: silence means "nothing to do").

The registry knows where each kind keeps its pods; this walk knows nothing of
kinds. It takes every mapping anywhere in the object whose ``resources`` holds
``limits`` or ``requests`` naming a GPU resource (the configured providers'
names, a policy's ``gpuResources``, HAMi's, any accelerator of
:mod:`tfpolicy.gpus.vendors`, or a shorthand a kind defines for itself); every pod's
DRA claims and every claim's GPU device requests (:mod:`tfpolicy.workloads.dra`); and,
in a custom resource, each field that asks GPUs by a profile or a count
(:mod:`tfpolicy.workloads.profiles`). After the engine ran, a request under no pod
template it migrated or reported is reported here, with the reason
(:mod:`tfpolicy.workloads.reasons`): its vendor is not configured, its value is a
placeholder or one the API server refuses, it is in an init container, its kind is
unknown (with a ``podTemplates`` declaration guessed from the object's shape), its kind
keeps no pod there, it is not in a Kubernetes object at all, or it comes through DRA.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.gpus.quantity import QuantityError, resource_quantity
from tfpolicy.workloads import dra, profiles
from tfpolicy.workloads.requests import (
    DRA_CLAIM,
    DRA_POD,
    PROFILE,
    RESOURCE,
    GpuRequest,
    Known,
    Unmigrated,
)

# Shorthands a kind defines for a GPU count in its own resources block: Dynamo's
# ``resources.limits.gpu`` (ai-dynamo/dynamo deploy/cloud/operator/api/v1alpha1/common.go,
# ResourceItem.GPU, turned into the provider's resource name by the operator).
SHORTHANDS: dict[tuple[str, str], frozenset[str]] = {
    ("nvidia.com", "DynamoGraphDeployment"): frozenset({"gpu"}),
    ("nvidia.com", "DynamoComponentDeployment"): frozenset({"gpu"}),
}

def shorthands(obj: Mapping[str, Any]) -> frozenset[str]:
    return SHORTHANDS.get((_group(obj), str(obj.get("kind"))), frozenset())


def find_requests(obj: Mapping[str, Any], is_gpu: Callable[[str], bool],
                  extra: frozenset[str] = frozenset()) -> list[GpuRequest]:
    """Every non-zero GPU request in ``obj``, then its DRA claims and claims' device
    requests, then its profile candidates."""
    found: list[GpuRequest] = []
    for path, node in _blocks(obj):
        resources = node.get("resources")
        resources = resources if isinstance(resources, dict) else {}
        for part in ("limits", "requests"):
            block = resources.get(part)
            if not isinstance(block, dict):
                continue
            for name, value in block.items():
                if isinstance(name, str) and (name in extra or is_gpu(name)) \
                        and not _zero(value):
                    found.append(GpuRequest((*path, "resources", part, name), name, value))
        claims = node.get("resourceClaims")
        if isinstance(claims, list) and "containers" in node:
            found += [GpuRequest(c.path, c.claim, c, DRA_POD)
                      for c in dra.entries_of(claims, (*path, "resourceClaims"))]
    claim = dra.claim_of(obj)
    if claim is not None:
        requests = dict.fromkeys(a.path for a in claim.asks)  # one per request, in order
        found += [GpuRequest(p, "", tuple(a for a in claim.asks if a.path == p), DRA_CLAIM)
                  for p in requests]
    found += [GpuRequest(p, k, v, PROFILE) for p, k, v in profiles.candidates(obj)]
    return found


def _zero(value: Any) -> bool:
    """No request at all: zero, empty or null (a count Kubernetes reads as 0)."""
    if value in (None, "", False):
        return True
    try:
        return resource_quantity(value) == 0
    except QuantityError:
        return False


def _blocks(node: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each mapping holding a ``resources`` mapping or a ``resourceClaims`` list, in no
    particular order (the findings are sorted by position).

    A stack, not recursion (a deep document costs no Python frames); builtin type tests,
    not the ``Mapping`` ABC, whose test made this walk twice as slow (the engine's data are
    plain dicts and lists).
    """
    stack: list[tuple[Any, Path]] = [(node, ())]
    pop, push = stack.pop, stack.append
    while stack:
        item, path = pop()
        if isinstance(item, dict):
            if isinstance(item.get("resources"), dict) or "resourceClaims" in item:
                yield path, item
            for key, value in item.items():
                if isinstance(value, (dict, list)):
                    push((value, (*path, key)))
        else:
            for index, value in enumerate(item):
                if isinstance(value, (dict, list)):
                    push((value, (*path, index)))


def unmigrated(obj: Mapping[str, Any], requests: list[GpuRequest],
               known: Known) -> list[Unmigrated]:
    """The requests under no handled path (a pod template the engine migrated, or one it
    reported), each with the reason; one of a vendor no provider lists, or of an init
    container, is reported even inside a migrated template: no stage takes it over, so
    the device plugin still holds that GPU (rightsize removes the containers' only). So is
    every DRA claim of a GPU class, and every claim a pod names that the input lacks."""
    out = []
    for request in requests:
        if request.kind != RESOURCE:
            out += _other(obj, request, known)
            continue
        inside = any(request.path[:len(h)] == h for h in known.handled)
        request = _named(obj, request)
        configured = known.configured(request.resource)
        if inside and configured and "initContainers" not in request.path:
            continue
        out.append(_why(obj, request, configured, known.kind_known))
    return out


# The reasons a request is not migrated are worded by .reasons, imported on first use: a
# run whose requests all migrate never words one.
def _other(obj: Mapping[str, Any], request: GpuRequest, known: Known) -> list[Unmigrated]:
    from tfpolicy.workloads.reasons import other

    return other(obj, request, known)


def _why(obj: Mapping[str, Any], request: GpuRequest, configured: bool,
         kind_known: bool) -> Unmigrated:
    from tfpolicy.workloads.reasons import why

    return why(obj, request, configured, kind_known)


def counted(items: list[Unmigrated]) -> list[Unmigrated]:
    """The warnings among ``items``: what the counts of GPU requests not migrated take."""
    return [u for u in items if u.severity is Severity.WARNING]


def _named(obj: Mapping[str, Any], request: GpuRequest) -> GpuRequest:
    """A shorthand's request under the resource it becomes: Dynamo's ``limits.gpu`` is
    ``limits[gpuType]``, ``nvidia.com/gpu`` without one (ai-dynamo/dynamo deploy/cloud/
    operator/internal/controller_common/resource.go, getGPUResourceName)."""
    if request.resource not in shorthands(obj):
        return request
    node: Any = obj
    for step in request.path[:-1]:
        node = node[step]
    kind = node.get("gpuType") if request.path[-2] == "limits" else None
    return GpuRequest(request.path, kind if isinstance(kind, str) and kind
                      else "nvidia.com/gpu", request.value)


__all__ = ["DRA_CLAIM", "DRA_POD", "PROFILE", "RESOURCE", "SHORTHANDS", "GpuRequest", "Known",
           "Unmigrated", "counted", "find_requests", "shorthands", "unmigrated"]


def _group(obj: Mapping[str, Any]) -> str:
    api = obj.get("apiVersion")
    return api.rpartition("/")[0] if isinstance(api, str) else ""
