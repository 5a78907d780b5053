"""The built-in kinds and where each controller takes a pod's shape from (DESIGN §1).

Most kinds embed a whole pod template (``metadata`` + ``spec``). Some keep the
pod's labels and annotations in one place and its containers in others
(a :class:`Shape`); tfpolicy writes only where the controller copies to the
pod, as its source says (cited per kind), since an annotation anywhere else
does nothing. Where no field of a kind reaches the pod, its GPU resources are
reported with the reason (``reports``), never edited.

Paths use ``.`` between fields, ``*`` for any key of a mapping or item of a
list, and ``[*]``/``[N]`` for list items, so users can add their own kinds
in a policy's ``podTemplates``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANY = "*"
_TOKEN = re.compile(r"\[(\*|[0-9]+)\]|([^.\[\]]+)")
Pattern = tuple[str | int, ...]


def parse_template_path(text: str) -> Pattern:
    """``spec.workers[*].template`` → ``("spec", "workers", "*", "template")``."""
    if not text:
        return ()
    out: list[str | int] = []
    for match in _TOKEN.finditer(text):
        index, name = match.groups()
        out.append(name if name is not None else (ANY if index == "*" else int(index)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Shape:
    """A pod whose parts live apart, relative to ``anchor``: ``meta`` holds its
    ``labels``/``annotations``, ``spec`` its pod-level fields, each ``containers``
    pattern one container (with the name the controller gives it when it has none).
    When ``shared`` exists, the same labels reach another pod spec too, and no
    annotation could say what each of them needs: the shape is refused with ``why``."""

    anchor: Pattern
    meta: Pattern
    spec: Pattern | None
    containers: tuple[tuple[Pattern, str], ...]
    shared: Pattern | None = None
    why: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    """GPU resources at ``path`` that no field of the kind can migrate, and why."""

    path: Pattern
    reason: str


@dataclass(frozen=True, slots=True)
class TemplateKind:
    group: str  # "" = the core group
    kind: str
    paths: tuple[Pattern, ...]
    shapes: tuple[Shape, ...] = ()
    reports: tuple[Report, ...] = ()
    nested: tuple[Pattern, ...] = ()  # embedded objects whose own kind says where pods are


def _kinds(group: str, kinds: str, *paths: str) -> list[TemplateKind]:
    parsed = tuple(parse_template_path(p) for p in paths)
    return [TemplateKind(group, kind, parsed) for kind in kinds.split()]


def _p(text: str) -> Pattern:
    return parse_template_path(text)


_RAY_GROUPS = ("headGroupSpec.template", "workerGroupSpecs[*].template")
_JOBSET = "replicatedJobs[*].template.spec.template"

# KServe v1beta1 ComponentExtensionSpec: "Labels/Annotations that will be added to the
# component pod" (kserve pkg/apis/serving/v1beta1/component.go:121-128); the component
# embeds the PodSpec inline, and a framework key (predictor.model, .pytorch, ...) is one
# container the controller names "kserve-container" (pkg/constants InferenceServiceContainerName).
_FRAMEWORKS = ("model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml",
               "lightgbm", "paddle", "huggingface", "art", "alibi")
_KSERVE_WORKER = ("spec.predictor.workerSpec: the predictor's labels and annotations reach its "
                  "worker pods too, so one set of TensorFusion annotations cannot fit both")


def _kserve_component(name: str) -> Shape:
    containers = ((("containers", ANY), ""), *(((fw,), "kserve-container") for fw in _FRAMEWORKS))
    return Shape(("spec", name), (), (), containers,
                 ("workerSpec",) if name == "predictor" else None, _KSERVE_WORKER)


_KSERVE = tuple(_kserve_component(c) for c in ("predictor", "transformer", "explainer"))

# LLMInferenceService (v1alpha1, v1alpha2): spec.labels/annotations are copied to the pods of
# spec.template and, multi-node, to both leader and worker (kserve pkg/controller/v1alpha2/
# llmisvc/workload_single_node.go:181-182, workload_multi_node.go:127-131); prefill likewise
# from spec.prefill.labels/annotations (workload_single_node.go:286-287).
_LLM_WORKER = ("{anchor}.worker: {anchor}.labels and annotations reach both the leader "
               "({anchor}.template) and the worker pods, so one set of TensorFusion annotations "
               "cannot fit both")


def _llm_workload(anchor: str) -> Shape:
    return Shape(_p(anchor), (), ("template",), ((("template", "containers", ANY), ""),),
                 ("worker",), _LLM_WORKER.format(anchor=anchor))


_LLM = (_llm_workload("spec"), _llm_workload("spec.prefill"))

# Argo Workflows: a template's `metadata` "sets the pods's metadata, i.e. annotations and
# labels" (argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go, Template.Metadata);
# its container or script runs as the container named "main" (workflow/common MainContainerName).
_ARGO_STEP = ("metadata",), (), ((("container",), "main"), (("script",), "main"))


def _argo(anchor: str) -> Shape:
    return Shape(_p(anchor), *_ARGO_STEP)


_ARGO = ["Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"]

# MPIJob v1alpha1 spec.gpus / spec.processingUnits: the operator derives the workers'
# resources from the count itself (mpi-operator v1alpha1 MPIJobSpec.GPUs, ProcessingUnits)
_MPI_V1ALPHA1 = tuple(Report(("spec", key), (
    f"MPIJob v1alpha1 spec.{key}: the operator sets the workers' GPU resources from this "
    "count itself; write them in spec.template instead")) for key in ("gpus", "processingUnits"))

# Knative: the revision template's labels and annotations are the revision's, which the
# deployment's pod template carries (knative serving pkg/reconciler/revision/resources/
# deploy.go, MakeDeployment); an unnamed container is "user-container" (config-defaults
# container-name-template), so the template is read through a view that names it.
_KNATIVE = Shape(("spec", "template"), ("metadata",), ("spec",),
                 ((("spec", "containers", ANY), "user-container"),))

_REPORTED = (
    TemplateKind("apps.nvidia.com", "NIMService", (), reports=(Report(_p("spec.resources"), (
        "NIMService: the NIM Operator builds the pod template itself; migrate the "
        "Deployment it renders")),)),
    TemplateKind("mlops.seldon.io", "Server", (), reports=(Report(_p("spec.podSpec"), (
        "Seldon Server: spec.podSpec has no metadata; the pod's labels and annotations come "
        "from the ServerConfig it names")),)),
    TemplateKind("llmaz.io", "OpenModel", (), reports=(Report(
        _p("spec.inferenceConfig.flavors"), (
            "llmaz OpenModel: the controller copies a flavor's limits into the pod it builds, "
            "and no field of the model reaches the pod's annotations")),)),
    TemplateKind("inference.llmaz.io", "Playground", (), reports=(Report(
        _p("spec.backendRuntimeConfig"), (
            "llmaz Playground: the controller builds the pod from its BackendRuntime, and no "
            "field of the Playground reaches the pod's annotations")),)),
    *(TemplateKind(group, "TrainJob", (), reports=(Report(_p("spec.trainer"), (
        "TrainJob: spec.trainer resources are merged into the runtime's pod template by the "
        "trainer controller; migrate the TrainingRuntime or ClusterTrainingRuntime it "
        "names")),)) for group in ("trainer.kubeflow.org", "kubeflow.org")),
)

BUILTIN_KINDS: tuple[TemplateKind, ...] = tuple(
    _kinds("apps", "Deployment StatefulSet DaemonSet ReplicaSet", "spec.template")
    + _kinds("extensions", "Deployment DaemonSet ReplicaSet", "spec.template")
    + _kinds("", "ReplicationController", "spec.template")
    + _kinds("", "PodTemplate", "template")
    + _kinds("", "Pod", "")
    + _kinds("batch", "Job", "spec.template")
    + _kinds("batch", "CronJob", "spec.jobTemplate.spec.template")
    + _kinds("argoproj.io", "Rollout", "spec.template")
    + _kinds("kubeflow.org", "PyTorchJob", "spec.pytorchReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "TFJob", "spec.tfReplicaSpecs.*.template")
    # MPIJob v1alpha1 has one spec.template; v1alpha2 and later one per replica type
    + [TemplateKind("kubeflow.org", "MPIJob", (_p("spec.mpiReplicaSpecs.*.template"),
                                               _p("spec.template")), reports=_MPI_V1ALPHA1)]
    + _kinds("kubeflow.org", "XGBoostJob", "spec.xgbReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "PaddleJob", "spec.paddleReplicaSpecs.*.template")
    + _kinds("ray.io", "RayCluster", *(f"spec.{p}" for p in _RAY_GROUPS))
    + _kinds("ray.io", "RayJob", *(f"spec.rayClusterSpec.{p}" for p in _RAY_GROUPS))
    + _kinds("ray.io", "RayService", *(f"spec.rayClusterConfig.{p}" for p in _RAY_GROUPS))
    + _kinds("leaderworkerset.x-k8s.io", "LeaderWorkerSet",
             "spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate")
    + _kinds("jobset.x-k8s.io", "JobSet", f"spec.{_JOBSET}")
    + _kinds("trainer.kubeflow.org", "TrainingRuntime ClusterTrainingRuntime",
             f"spec.template.spec.{_JOBSET}")
    + _kinds("kubeflow.org", "TrainingRuntime ClusterTrainingRuntime",
             f"spec.template.spec.{_JOBSET}")
    + [TemplateKind("serving.knative.dev", k, (), (_KNATIVE,))
       for k in ("Service", "Configuration")]
    + _kinds("batch.volcano.sh", "Job", "spec.tasks[*].template")
    + _kinds("sagemaker.amazonaws.com", "HyperPodPyTorchJob", "spec.replicaSpecs[*].template")
    + _kinds("kaito.sh", "Workspace", "inference.template")
    + _kinds("orchestration.aibrix.ai", "StormService", "spec.template.spec.roles[*].template")
    + _kinds("orchestration.aibrix.ai", "RayClusterFleet",
             *(f"spec.template.spec.{p}" for p in _RAY_GROUPS))
    + [TemplateKind(g, "InferenceService", (), _KSERVE, (Report(_p("spec.default"), (
        "InferenceService v1alpha2 (spec.default): KServe serves v1beta1 only; convert the "
        "manifest to v1beta1 first")),)) for g in ("serving.kserve.io", "serving.kubeflow.org")]
    + [TemplateKind("serving.kserve.io", k, (), _LLM)
       for k in ("LLMInferenceService", "LLMInferenceServiceConfig")]
    + [TemplateKind("argoproj.io", k, (), (_argo("spec.templates[*]"),)) for k in _ARGO]
    + [TemplateKind("argoproj.io", "CronWorkflow", (), (_argo("spec.workflowSpec.templates[*]"),))]
    # Katib creates each trial from trialSpec as written, so its own kind decides
    + [TemplateKind("kubeflow.org", "Experiment", (), nested=(_p("spec.trialTemplate.trialSpec"),))]
    + list(_REPORTED)
)
