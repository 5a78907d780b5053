"""NVIDIA Dynamo's services: a pod whose GPU count is a field of the service, not a container's.

Read in ai-dynamo/dynamo, deploy/cloud/operator:

- The pod's labels and annotations: each service's ``extraPodMetadata`` is merged into the
  Grove clique's (internal/dynamo/graph.go@52c2429d3511, generateLabels and
  generateAnnotations, called by GenerateGrovePodCliqueSet), whose pods take them (see
  Grove in :mod:`.serving`); without Grove, the DynamoComponentDeployment controller copies
  them into the Deployment's or LeaderWorkerSet's pod template (internal/controller/
  dynamocomponentdeployment_controller.go@015d2b9e285e, generatePodTemplateSpec, after
  ``maps.Copy(podAnnotations, extraPodMetadata.Annotations)``). Each service of a
  DynamoGraphDeployment becomes a DynamoComponentDeployment with the same spec
  (graph.go, GenerateDynamoComponentsDeployments).
- The containers: ``extraPodSpec`` is a pod spec, its ``containers`` kept, and the operator
  appends one more, its base container named "main" (internal/dynamo/component_common.go
  @045bae6b3de3, getCommonContainer) with ``extraPodSpec.mainContainer`` merged over it,
  name included (graph.go, GenerateBasePodSpec).
- The GPU: ``resources`` is copied over that container's resources (GenerateBasePodSpec,
  ``maps.Copy``), its ``limits.gpu`` becoming ``limits[gpuType]``, or ``nvidia.com/gpu``
  without one; ``requests.gpu`` is not converted (internal/controller_common/resource.go
  @0284ad8648d3, GetResourcesConfig and getGPUResourceName).

- Where the count is read again: a multinode TensorRT-LLM leader runs ``mpirun -n`` nodes ×
  the service's GPUs (internal/dynamo/backend_trtllm.go@396bbf1118e7, getGPUsPerNode), and
  later operators refuse a ``gpuMemoryService`` without ``resources.limits.gpu`` >= 1
  (their validation: "GPU memory service requires resources.limits.gpu >= 1"). Such
  services are refused: removing the count would break them.

- v1beta1: a component's ``podTemplate`` is converted into those fields, its metadata the
  extraPodMetadata, its "main" container's resources the service's, the other containers
  extraPodSpec's (deploy/operator/api/v1alpha1/shared_spec_conversion.go,
  decomposePodTemplateSpec; restoreDedicatedFieldsFromMain@57ffc64ba00d): a whole pod
  template.

So the view's main container holds the service's ``resources`` with ``limits.gpu`` shown
under the resource name it becomes: takeover keeps it, rightsize removes it (recorded), so
the device plugin no longer gives the pod a whole card, and rollback writes it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import Path, clone
from tfpolicy.gpus.vendors import accelerator
from tfpolicy.records import replace
from tfpolicy.workloads.shapes import ANY, Shape, Slot
from tfpolicy.workloads.views import Move, View, shape_view

NVIDIA_GPU = "nvidia.com/gpu"
_MAIN = "main"
_PARTS = Shape((), ("extraPodMetadata",), ("extraPodSpec",), (
    Slot(("extraPodSpec", "containers", ANY)), Slot(("extraPodSpec", "mainContainer"), _MAIN)))
_MULTINODE = ("Dynamo service with multinode.nodeCount {count}: the operator reads its GPU "
              "count again for a multinode launch (TensorRT-LLM's mpirun -n nodes × GPUs), "
              "so it cannot be removed; migrate it by hand")
_MEMORY = ("Dynamo service with gpuMemoryService: the operator requires a GPU count of at "
           "least 1 for it, so the count cannot be removed; migrate it by hand")
_MAIN_GPU = ("Dynamo service: extraPodSpec.mainContainer.resources names a GPU resource, "
             "which the operator overlays with the service's own resources; write the count "
             "as resources.limits.gpu, where tfpolicy migrates it")


def component_view(obj: Mapping[str, Any], anchor: Path, template: str) -> View:
    """A v1beta1 component's pod: its whole ``podTemplate``, read in place (the conversion
    to v1alpha1 makes its metadata the extraPodMetadata and its "main" container's resources
    the service's, the other containers extraPodSpec's), refused where v1alpha1's service
    would be."""
    component = _at(obj, anchor)
    assert isinstance(component, Mapping)
    experimental = component.get("experimental")
    memory = experimental.get("gpuMemoryService") if isinstance(experimental, Mapping) else None
    why = _refused({**component, "gpuMemoryService": memory}, None)
    path = (*anchor, template)
    return View(path, _at(obj, path), refused=why)


def service_view(obj: Mapping[str, Any], anchor: Path) -> View:
    """The pod of the service at ``anchor``: its sidecars, then the main container, shown
    as the service itself (its keys in their order, so a key put back finds its place)
    with ``resources.limits.gpu`` under the name it becomes, and the container's name."""
    service = _at(obj, anchor)
    assert isinstance(service, Mapping)
    base = shape_view(obj, anchor, replace(_PARTS, anchor=anchor))
    template = base.template
    template["spec"].pop("mainContainer", None)
    has_main = isinstance(_at(obj, (*anchor, "extraPodSpec", "mainContainer")), Mapping)
    sidecars = base.containers[:-1] if has_main else base.containers
    items = template["spec"]["containers"]
    own = items.pop(len(sidecars)) if has_main else {}
    name = _gpu_name(service.get("resources"))
    main = {k: clone(v) for k, v in service.items() if k != "name"}
    if isinstance(main.get("resources"), Mapping):
        main["resources"] = _renamed(main["resources"], "gpu", name)
    main["name"] = own.get("name") or _MAIN
    items.insert(len(sidecars), main)
    move = Move(("spec", "containers", len(sidecars)), anchor, ("resources", "limits"),
                name, "gpu")
    view = replace(base, containers=sidecars, moved=move)
    why = _refused(service, own.get("resources"))
    if why:
        main["resources"] = _merged(own.get("resources"), main.get("resources"))
    return replace(view, refused=why) if why else view


def _refused(service: Mapping[str, Any], own: Any) -> str:
    multinode = service.get("multinode")
    count = multinode.get("nodeCount") if isinstance(multinode, Mapping) else None
    if isinstance(count, int) and not isinstance(count, bool) and count > 1:
        return _MULTINODE.format(count=count)
    if service.get("gpuMemoryService") not in (None, False, {}):
        return _MEMORY
    if isinstance(own, Mapping) and any(
            isinstance(section, Mapping) and any(
                isinstance(k, str) and accelerator(k) is not None for k in section)
            for section in own.values()):
        return _MAIN_GPU
    return ""


def _gpu_name(resources: Any) -> str:
    limits = resources.get("limits") if isinstance(resources, Mapping) else None
    kind = limits.get("gpuType") if isinstance(limits, Mapping) else None
    return kind if isinstance(kind, str) and kind else NVIDIA_GPU


def _renamed(resources: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """A copy of ``resources`` with ``limits[old]`` under ``new``, in its place."""
    out: dict[str, Any] = clone(dict(resources))
    limits = out.get("limits")
    if isinstance(limits, dict) and old in limits:
        out["limits"] = {(new if k == old else k): v for k, v in limits.items()}
    return out


def _merged(own: Any, service: Any) -> Any:
    """The main container's resources as the pod gets them: the service's over its own."""
    if not isinstance(own, Mapping):
        return service
    out = clone(dict(own))
    for part, values in (service or {}).items():
        if isinstance(values, Mapping) and isinstance(out.get(part), Mapping):
            out[part] = {**out[part], **values}
        else:
            out[part] = values
    return out


def _at(node: Any, path: Path) -> Any:
    """The value at ``path``, ``None`` where a step is missing."""
    for step in path:
        found = (isinstance(node, Mapping) and step in node) or (
            isinstance(node, list) and isinstance(step, int) and step < len(node))
        if not found:
            return None
        node = node[step]
    return node
