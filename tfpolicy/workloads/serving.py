"""The kinds of the LLM serving and training stacks (issue 25 §2), each controller's rule cited.

Split from :mod:`.kinds` (which joins them into ``BUILTIN_KINDS``) to keep each module
small; the records and path syntax are :mod:`.shapes`'.
"""

from __future__ import annotations

from tfpolicy.workloads.shapes import Pattern, Report, TemplateKind, parse_template_path


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
# :341), and no field of it reaches the pods' labels or annotations.
_KTHENA_GROUP = "workload.serving.volcano.sh"
_KTHENA = (
    TemplateKind(_KTHENA_GROUP, "ModelServing", (
        _p("spec.template.roles[*].entryTemplate"), _p("spec.template.roles[*].workerTemplate"))),
    TemplateKind(_KTHENA_GROUP, "ModelBooster", (), reports=(Report(
        _p("spec.backend.workers"), (
            "kthena ModelBooster: the controller builds a ModelServing from its workers' "
            "resources, and no field of the ModelBooster reaches the pods' labels or "
            "annotations; migrate a ModelServing instead")),)),
)

SERVING_KINDS: tuple[TemplateKind, ...] = (_RBG, *_KTHENA)
