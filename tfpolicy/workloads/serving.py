"""The kinds of the LLM serving and training stacks (docs/kinds.md), each controller's rule cited.

Split from :mod:`.kinds` (which joins them into ``BUILTIN_KINDS``) to keep each module
small; the records and path syntax are :mod:`.shapes`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.workloads.shapes import (
    ANY,
    Pattern,
    Report,
    ServiceShape,
    Shape,
    Slot,
    TemplateKind,
    parse_template_path,
)


def _p(text: str) -> Pattern:
    return parse_template_path(text)


# RoleBasedGroup (sgl-project/rbg@993491fba9bf). v1alpha2 is the storage version; v1alpha1 is
# converted to it (api/workloads/v1alpha1/rolebasedgroup_conversion.go:125-216: roles[].template
# becomes standalonePattern.template, or leaderWorkerPattern.template with a leaderWorkerSet;
# templatePatch becomes templateRef.patch; patchLeader/WorkerTemplate the leader/worker patches).
# A role's pods are its resolved template: the inline one, or the spec.roleTemplates entry its
# templateRef names, strategic-merge-patched with templateRef.patch (api/workloads/v1alpha2/
# helper.go:392-415, GetResolvedTemplate); the template's labels and annotations are kept and
# the group's own labels added (pkg/reconciler/pod_reconciler.go:64-144). A leaderWorkerPattern
# template makes both leader and worker pods, each patched with its own patch
# (pkg/reconciler/lws_reconciler.go:227-270). role.labels/annotations go to the StatefulSet,
# Deployment or LeaderWorkerSet, not to its pods (sts_reconciler.go:494-495,
# lws_reconciler.go:343-344, deploy_reconciler.go:157-158).
_RBG_PATCH = ("RoleBasedGroup {field}: a strategic merge patch the controller applies over the "
              "role's template, so GPU resources it sets are not in the template tfpolicy "
              "writes; move them into the template (or the spec.roleTemplates entry)")
_RBG_PATCHES = ("spec.roles[*].standalonePattern.templateRef.patch",
                "spec.roles[*].leaderWorkerPattern.leaderTemplatePatch",
                "spec.roles[*].leaderWorkerPattern.workerTemplatePatch",
                "spec.roles[*].templatePatch",  # v1alpha1
                "spec.roles[*].leaderWorkerSet.patchLeaderTemplate",
                "spec.roles[*].leaderWorkerSet.patchWorkerTemplate")
_RBG = TemplateKind("workloads.x-k8s.io", "RoleBasedGroup", tuple(_p(t) for t in (
    "spec.roles[*].standalonePattern.template", "spec.roles[*].leaderWorkerPattern.template",
    "spec.roles[*].template", "spec.roleTemplates[*].template")), reports=tuple(
    Report(_p(path), _RBG_PATCH.format(field=path.rpartition("]")[2].lstrip(".")))
    for path in _RBG_PATCHES))

# kthena (volcano-sh/kthena@3cc057284c34): a ModelServing makes each role's pods itself, bare
# and owned by it: the entry pod takes entryTemplate's metadata labels and annotations and its
# spec, each worker pod workerTemplate's (pkg/model-serving-controller/utils/utils.go:96-121,
# addPodLabelAndAnnotation). A ModelBooster is converted into a ModelServing whose containers
# get each worker's resources (pkg/model-booster-controller/convert/model_serving.go:205-207,
# :341), whose templates' metadata is the controller's own labels alone (:170-192, :293-312,
# utils/template.go:188-196, GetModelControllerLabels), and whose engine command depends on
# the workers' nvidia.com/gpu (model_serving.go:365-380, --num-gpus and hasGPU :388-401): no
# field of the ModelBooster reaches the pods' labels or annotations, and removing its GPU
# would change the command, so it is reported.
_KTHENA_GROUP = "workload.serving.volcano.sh"
_KTHENA = (
    TemplateKind(_KTHENA_GROUP, "ModelServing", (
        _p("spec.template.roles[*].entryTemplate"), _p("spec.template.roles[*].workerTemplate"))),
    TemplateKind(_KTHENA_GROUP, "ModelBooster", (), reports=(Report(
        _p("spec.backend.workers"), (
            "kthena ModelBooster: the controller builds a ModelServing from its workers' "
            "resources whose pods carry only the controller's own labels, so no field of the "
            "ModelBooster reaches them, and it builds the engine's command from the workers' "
            "nvidia.com/gpu; write a ModelServing instead, whose templates tfpolicy migrates")),)),
)

# Grove (NVIDIA/grove@a9716b8e614a): a PodCliqueSet makes a PodClique per clique of its
# template, labelled with the clique's labels and annotated with its annotations
# (operator/internal/controller/podcliqueset/components/podclique/podclique.go:305-306,
# :381), and each PodClique's pods take its labels and annotations and its spec.podSpec
# (operator/internal/controller/podclique/components/pod/pod.go:147-161).
_GROVE = TemplateKind("grove.io", "PodCliqueSet", (), (Shape(
    _p("spec.template.cliques[*]"), (), ("spec", "podSpec"),
    (Slot(("spec", "podSpec", "containers", ANY)),)),))

# Dynamo (ai-dynamo/dynamo): each service's pod is read as :mod:`.dynamo` cites; its
# extraPodMetadata reaches the pods, its resources.limits.gpu is the main container's GPU.
# v1beta1's spec.components[*].podTemplate (DynamoComponentDeployment: spec.podTemplate) is
# converted into those fields by the operator (deploy/operator/api/v1alpha1/
# shared_spec_conversion.go, decomposePodTemplateSpec): a whole pod template, its "main"
# container the main one.
_DYNAMO_KINDS = (
    TemplateKind("nvidia.com", "DynamoGraphDeployment", (), (
        ServiceShape(_p("spec.services.*")), ServiceShape(_p("spec.components[*]"),
                                                          "podTemplate"))),
    TemplateKind("nvidia.com", "DynamoComponentDeployment", (), (
        ServiceShape(_p("spec")), ServiceShape(_p("spec"), "podTemplate"))),
)

# llmaz Service (InftyAI/llmaz@3c13ff343e28): its workloadTemplate is a LeaderWorkerSet's
# leaderWorkerTemplate, whose leader and worker templates become the LeaderWorkerSet's, labels
# and annotations kept and the model's merged in (pkg/controller/inference/
# service_controller.go:197-232, :277-284). The OpenModel's flavor limits overwrite the
# model-runner container's resources (:293-331): that is reported on the OpenModel.
_LLMAZ = TemplateKind("inference.llmaz.io", "Service", (
    _p("spec.workloadTemplate.leaderTemplate"), _p("spec.workloadTemplate.workerTemplate")))

# OME (sgl-project/ome@17b77edad23b): a ServingRuntime or ClusterServingRuntime is the base
# each InferenceService that selects it is merged over, engineConfig and decoderConfig
# (labels, annotations, runner, leader and worker) under the InferenceService's engine and
# decoder (pkg/controller/v1beta1/inferenceservice/utils/reconciliation.go:69-99,
# MergeRuntimeSpecs; merging.go:105-145); the merged labels and annotations reach the pods
# (components/engine.go:213-245, processAnnotations and processLabels). But the engine's
# PARALLELISM_SIZE is computed from the runner's GPU count (engine.go:350-373,
# setParallelismEnvVarForEngine) and an AcceleratorClass's resources override the runtime's
# (merging.go:224-290, MergeResource): removing the runtime's GPU would change the engine's
# parallelism or be overridden, and one runtime serves many InferenceServices. Reported.
_OME = ("OME {kind}: the runtime is the base of every InferenceService that selects it; the "
        "engine's PARALLELISM_SIZE is computed from this GPU count and an AcceleratorClass "
        "overrides it, so removing it is not safe and one set of TensorFusion annotations "
        "would reach every such InferenceService; set TensorFusion's labels and annotations "
        "in the InferenceService's engine or decoder by hand")
_OME_KINDS = tuple(TemplateKind("ome.io", kind, (), reports=tuple(
    Report(_p(path), _OME.format(kind=kind))
    for path in ("spec.engineConfig", "spec.decoderConfig", "spec.containers", "spec.workers")))
    for kind in ("ServingRuntime", "ClusterServingRuntime"))

SERVING_KINDS: tuple[TemplateKind, ...] = (_RBG, *_KTHENA, _GROVE, *_DYNAMO_KINDS, _LLMAZ,
                                           *_OME_KINDS)


# How many pods: each factor is where a count is, its default, what to take off; the
# registry reads and checks them (``replicas_of``).
Factor = tuple[Path, int, int]


def serving_factors(obj: Mapping[str, Any], kind: str, template: Path) -> list[Factor] | None:
    """The counts behind one template of these kinds; ``None`` for another kind."""
    if kind == "RoleBasedGroup":
        return _rbg(template)
    if kind == "ModelServing":
        return _model_serving(template)
    if kind == "PodCliqueSet":
        return _grove(obj, template)
    if kind in ("DynamoGraphDeployment", "DynamoComponentDeployment"):
        # a service's replicas (the Deployment's or the clique's, default 1) × its
        # multinode.nodeCount pods each (graph.go, expandRolesForService); v1beta1 the same
        # fields beside the component's podTemplate
        service = template[:-1] if template[-1:] == ("podTemplate",) else template
        return [((*service, "replicas"), 1, 0), ((*service, "multinode", "nodeCount"), 1, 0)]
    return None


def _rbg(template: Path) -> list[Factor]:
    """A role's replicas, times its leaderWorkerPattern's (v1alpha1: leaderWorkerSet's)
    ``size``, default 1 (sgl-project/rbg pkg/reconciler/lws_reconciler.go:220-224
    @993491fba9bf): each group is ``size`` pods, the leader one of them."""
    if template[-2] == "standalonePattern":
        return [((*template[:-2], "replicas"), 1, 0)]
    if template[-2] == "leaderWorkerPattern":
        return [((*template[:-2], "replicas"), 1, 0), ((*template[:-1], "size"), 1, 0)]
    return [((*template[:-1], "replicas"), 1, 0),
            ((*template[:-1], "leaderWorkerSet", "size"), 1, 0)]


def rbg_template_users(obj: Mapping[str, Any], template: Path) -> list[list[Factor]]:
    """A spec.roleTemplates entry runs the pods of every role whose templateRef names it:
    each such role's counts, as if its template were its own."""
    entry = _at(obj, template[:-1])
    name = entry.get("name") if isinstance(entry, Mapping) else None
    roles = _at(obj, ("spec", "roles"))
    users = []
    for index, role in enumerate(roles if isinstance(roles, list) else []):
        if isinstance(role, Mapping) and _template_ref(role) == name:
            pattern = ("leaderWorkerPattern" if "leaderWorkerPattern" in role
                       else "standalonePattern")
            users.append(_rbg(("spec", "roles", index, pattern, "template")))
    return users


def _template_ref(role: Mapping[str, Any]) -> Any:
    """The roleTemplates name a role refers to (v1alpha2 in its pattern, v1alpha1 beside)."""
    for holder in (role.get("standalonePattern"), role.get("leaderWorkerPattern"), role):
        ref = holder.get("templateRef") if isinstance(holder, Mapping) else None
        if isinstance(ref, Mapping):
            return ref.get("name")
    return None


def _model_serving(template: Path) -> list[Factor]:
    """``spec.replicas`` serving groups (default 1) × the role's ``replicas`` (default 1) ×
    one entry pod, or ``workerReplicas`` workers (volcano-sh/kthena pkg/apis/workload/
    v1alpha1/model_serving_types.go:36-42, servinggroup_types.go:55-79@3cc057284c34)."""
    role = template[:-1]
    per_role = [((*role, "workerReplicas"), 0, 0)] if template[-1] == "workerTemplate" else []
    return [(("spec", "replicas"), 1, 0), ((*role, "replicas"), 1, 0), *per_role]


def _grove(obj: Mapping[str, Any], clique: Path) -> list[Factor]:
    """``spec.replicas`` gangs (default 0) × the scaling group's ``replicas`` when one names
    the clique (default 1) × the clique's ``spec.replicas`` (defaulted to 1 by the webhook)
    (NVIDIA/grove operator/api/core/v1alpha1/podcliqueset.go:52-57, :204-212; operator/
    internal/webhook/admission/pcs/defaulting/podcliqueset.go:74-75@a9716b8e614a)."""
    factors: list[Factor] = [(("spec", "replicas"), 0, 0), ((*clique, "spec", "replicas"), 1, 0)]
    entry = _at(obj, clique)
    name = entry.get("name") if isinstance(entry, Mapping) else None
    groups = _at(obj, ("spec", "template", "podCliqueScalingGroups"))
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        names = group.get("cliqueNames") if isinstance(group, Mapping) else None
        if isinstance(names, list) and name in names:
            factors.append((("spec", "template", "podCliqueScalingGroups", index, "replicas"),
                            1, 0))
            break
    return factors


def _at(node: Any, path: Path) -> Any:
    """The value at ``path``, ``None`` where a step is missing."""
    for step in path:
        if not _has(node, step):
            return None
        node = node[step]
    return node


def _has(node: Any, step: str | int) -> bool:
    if isinstance(node, Mapping):
        return step in node
    return isinstance(node, list) and isinstance(step, int) and step < len(node)
