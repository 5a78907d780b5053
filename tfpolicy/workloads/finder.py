"""Every GPU request of an object, found without the registry, and why each one the engine
did not migrate was not (DESIGN §4a: silence means "nothing to do").

The registry knows where each kind keeps its pods; this walk knows nothing of
kinds. It takes every mapping anywhere in the object whose ``resources`` holds
``limits`` or ``requests`` naming a GPU resource (the configured providers'
names, a policy's ``gpuResources``, HAMi's, any accelerator of
:mod:`tfpolicy.gpus.vendors`, or a shorthand a kind defines for itself). After
the engine ran, a request under no pod template it migrated or reported is
reported here, with the reason: its vendor is not configured, its value is a
placeholder, it is in an init container, its kind is unknown (with a
``podTemplates`` declaration guessed from the object's shape), or its kind
keeps no pod there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path, format_path
from tfpolicy.gpus.quantity import is_quantity
from tfpolicy.gpus.vendors import accelerator
from tfpolicy.records import Record

_KINDS_DOC = "docs/kinds.md"
# Shorthands a kind defines for a GPU count in its own resources block: Dynamo's
# ``resources.limits.gpu`` (ai-dynamo/dynamo deploy/cloud/operator/api/v1alpha1/common.go,
# ResourceItem.GPU, turned into the provider's resource name by the operator).
SHORTHANDS: dict[tuple[str, str], frozenset[str]] = {
    ("nvidia.com", "DynamoGraphDeployment"): frozenset({"gpu"}),
    ("nvidia.com", "DynamoComponentDeployment"): frozenset({"gpu"}),
}
_SIMPLE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class GpuRequest(Record):
    """One resource of one ``resources`` block: ``path`` ends with its name."""

    path: Path
    resource: str
    value: Any


class Unmigrated(Record):
    """A GPU request no pod template migrated or reported: where, which rule, and why."""

    path: Path
    rule: str
    message: str


def shorthands(obj: Mapping[str, Any]) -> frozenset[str]:
    return SHORTHANDS.get((_group(obj), str(obj.get("kind"))), frozenset())


def find_requests(obj: Mapping[str, Any], is_gpu: Callable[[str], bool],
                  extra: frozenset[str] = frozenset()) -> list[GpuRequest]:
    """Every non-zero GPU request in ``obj``, in document order."""
    found: list[GpuRequest] = []
    for path, resources in _resource_blocks(obj):
        for part in ("limits", "requests"):
            block = resources.get(part)
            if not isinstance(block, dict):
                continue
            for name, value in block.items():
                if isinstance(name, str) and (name in extra or is_gpu(name)) \
                        and value not in (0, "0", None, "", False):
                    found.append(GpuRequest((*path, "resources", part, name), name, value))
    return found


def _resource_blocks(node: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each mapping's ``resources`` mapping, in no particular order (the findings are
    sorted by position).

    A stack, not recursion (a deep document costs no Python frames); builtin type tests,
    not the ``Mapping`` ABC, whose test made this walk twice as slow (the engine's data are
    plain dicts and lists).
    """
    stack: list[tuple[Any, Path]] = [(node, ())]
    pop, push = stack.pop, stack.append
    while stack:
        item, path = pop()
        if isinstance(item, dict):
            resources = item.get("resources")
            if isinstance(resources, dict):
                yield path, resources
            for key, value in item.items():
                if isinstance(value, (dict, list)):
                    push((value, (*path, key)))
        else:
            for index, value in enumerate(item):
                if isinstance(value, (dict, list)):
                    push((value, (*path, index)))


class Known(Record):
    """What the engine knows of the object: whether the registry has its kind, the paths
    it migrated or reported, and which names its providers and HAMi count."""

    kind_known: bool
    handled: tuple[Path, ...]
    configured: Callable[[str], bool]


def unmigrated(obj: Mapping[str, Any], requests: list[GpuRequest],
               known: Known) -> list[Unmigrated]:
    """The requests under no handled path (a pod template the engine migrated, or one it
    reported), each with the reason; one of a vendor no provider lists, or of an init
    container, is reported even inside a migrated template: no stage takes it over, so
    the device plugin still holds that GPU (rightsize removes the containers' only)."""
    out = []
    for request in requests:
        inside = any(request.path[:len(h)] == h for h in known.handled)
        request = _named(obj, request)
        configured = known.configured(request.resource)
        if inside and configured and "initContainers" not in request.path:
            continue
        out.append(_why(obj, request, configured, known.kind_known))
    return out


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


def _why(obj: Mapping[str, Any], request: GpuRequest, configured: bool,
         kind_known: bool) -> Unmigrated:
    name, where = request.resource, format_path(request.path)
    if not configured:
        found = accelerator(name)
        vendor = found.vendor if found else "GPU"
        return Unmigrated(request.path, "gpu-vendor-not-configured", (
            f"not migrated: {name} at {where} names a device of vendor {vendor}, which no "
            "configured TensorFusion provider lists; configure its ProviderConfig, or name "
            "it in the policy's gpuResources, to migrate it"))
    if isinstance(request.value, str) and not is_quantity(request.value):
        return Unmigrated(request.path, "gpu-placeholder", (
            f"not migrated: {name}: {_shown(request.value)} at {where} is a placeholder "
            "or unrendered value, not a quantity; render the manifest first"))
    if "initContainers" in request.path:
        return Unmigrated(request.path, "gpu-init-container", (
            f"not migrated: {name} at {where} is asked for by an init container; "
            "TensorFusion takes over the GPUs of a pod's containers only"))
    kind = f"{obj.get('kind')} ({obj.get('apiVersion')})"
    hint = declaration(obj, request.path)
    if not kind_known:
        return Unmigrated(request.path, "unknown-kind", (
            f"not migrated: {kind} is a kind tfpolicy does not know, so {name} at {where} "
            f"passes untouched; {hint}"))
    return Unmigrated(request.path, "kind-not-migrated", (
        f"not migrated: tfpolicy knows no field of {kind} that carries pod labels and "
        f"annotations to the pod asking for {name} at {where}; {hint}"))


def declaration(obj: Mapping[str, Any], path: Path) -> str:
    """A ready-to-paste ``podTemplates`` entry for the pod around ``path``: the template
    (a mapping whose ``spec`` holds the ``containers`` list the request is in), or else
    the component beside whose pod spec its labels or ``metadata`` are (``pods``); each
    list index and each key among named siblings generalised to ``*``. Or what to do."""
    head = f"podTemplates: [{{apiVersion: {obj.get('apiVersion')}, kind: {obj.get('kind')}, "
    spec = _pod_spec_of(path)
    if spec is not None and spec[-1:] == ("spec",):
        text = _pattern(obj, spec[:-1])
        if text is not None:
            return ("if its controller copies that template's labels and annotations to the "
                    f"pod, declare it: {head}paths: [\"{text}\"]}}]")
    pods = None if spec is None else _pods(obj, spec)
    if pods is not None:
        return ("if its controller copies those labels and annotations to the pod, declare "
                f"it: {head}pods: [{pods}]}}]")
    return (f"its containers are in no pod template (a spec with containers); declare "
            f"where its controller takes the pod from with podTemplates pods ({_KINDS_DOC})")


def _pod_spec_of(path: Path) -> Path | None:
    """The mapping holding the ``containers`` list the request is in."""
    for at in range(len(path) - 2, 0, -1):
        if path[at] == "containers" and isinstance(path[at + 1], int):
            return path[:at]
    return None


def _pods(obj: Mapping[str, Any], spec: Path) -> str | None:
    """A ``pods`` entry when the pod spec's parent holds ``labels``/``annotations`` (or a
    ``metadata`` holding them) beside it, as Grove's cliques and Seldon's Server do."""
    if len(spec) < 2 or not isinstance(spec[-1], str) or not _SIMPLE_KEY.match(spec[-1]):
        return None
    parent: Any = obj
    for step in spec[:-1]:
        parent = parent[step]
    meta = parent.get("metadata") if isinstance(parent, Mapping) else None
    if isinstance(parent, Mapping) and ("labels" in parent or "annotations" in parent):
        where = ""
    elif isinstance(meta, Mapping) and ("labels" in meta or "annotations" in meta):
        where = "metadata"
    else:
        return None
    at = _pattern(obj, spec[:-1])
    if at is None:
        return None
    name = spec[-1]
    return (f"{{at: \"{at}\", metadata: \"{where}\", spec: \"{name}\", "
            f"containers: [\"{name}.containers[*]\"]}}")


def _pattern(obj: Mapping[str, Any], template: Path) -> str | None:
    """``template`` as a registry path; ``None`` when a key cannot be spelled in one."""
    parts: list[str] = []
    node: Any = obj
    for step in template:
        if isinstance(step, int):
            parts.append("[*]")
        elif not _SIMPLE_KEY.match(step):
            return None
        else:
            named = _named_items(node, step)
            parts.append(("." if parts else "") + ("*" if named else step))
        node = node[step]
    return "".join(parts) if parts else None


def _named_items(node: Any, key: str) -> bool:
    """``key`` is one of several names of like items (``services.<name>``), not a field:
    every value beside it is a mapping holding the same first key its value holds."""
    if not isinstance(node, Mapping) or len(node) < 2:
        return False
    value = node[key]
    if not isinstance(value, Mapping) or not value:
        return False
    return all(isinstance(v, Mapping) and set(v) & set(value) for v in node.values())


def _group(obj: Mapping[str, Any]) -> str:
    api = obj.get("apiVersion")
    return api.rpartition("/")[0] if isinstance(api, str) else ""


def _shown(value: str) -> str:
    text = repr(value)
    return text if len(text) <= 34 else text[:33] + "…"
