"""The built-in kinds and where each controller takes a pod's shape from (docs/kinds.md).

Most kinds embed a whole pod template (``metadata`` + ``spec``). Some keep the
pod's labels and annotations in one place and its containers in others
(a :class:`Shape`); tfpolicy writes only where the controller copies to the
pod, as its source says (cited per kind), since an annotation anywhere else
does nothing. Where no field of a kind reaches the pod, its GPU resources are
reported with the reason (``reports``), never edited; where a field reaches
other pods too (an MPIJob v1alpha1 launcher), its template is read and counted
but refused (``refused``).

The records themselves (:class:`Shape`, :class:`Slot`, :class:`Report`,
:class:`TemplateKind`) and the path syntax are in :mod:`.shapes`.
"""

from __future__ import annotations

from tfpolicy.workloads.serving import SERVING_KINDS
from tfpolicy.workloads.shapes import (
    ALWAYS,
    ANY,
    FIRST,
    FIRST_ALWAYS,
    NUMBERED,
    Pattern,
    Report,
    Shape,
    Sidecar,
    Slot,
    TemplateKind,
    parse_template_path,
)

__all__ = ["ANY", "BUILTIN_KINDS", "Pattern", "Report", "Shape", "Slot", "TemplateKind",
           "parse_template_path"]


def _kinds(group: str, kinds: str, *paths: str) -> list[TemplateKind]:
    parsed = tuple(parse_template_path(p) for p in paths)
    return [TemplateKind(group, kind, parsed) for kind in kinds.split()]


def _p(text: str) -> Pattern:
    return parse_template_path(text)


_RAY_GROUPS = ("headGroupSpec.template", "workerGroupSpecs[*].template")


def _ray(group: str, kind: str, cluster: str) -> TemplateKind:
    """A RayClusterSpec at ``cluster``: with in-tree autoscaling on, KubeRay appends its
    ``autoscaler`` container to the head pod (ray-project/kuberay ray-operator/controllers/
    ray/common/pod.go, DefaultHeadPodTemplate: ``EnableInTreeAutoscaling`` true appends
    ``BuildAutoscalerContainer``, named ``AutoscalerContainerName`` = "autoscaler")."""
    head = _p(f"{cluster}.headGroupSpec.template")
    autoscaler = Sidecar(head, "autoscaler", _p(f"{cluster}.enableInTreeAutoscaling"))
    return TemplateKind(group, kind, tuple(_p(f"{cluster}.{g}") for g in _RAY_GROUPS),
                        sidecars=(autoscaler,))
_JOBSET = "replicatedJobs[*].template.spec.template"

# KServe v1beta1 (read in kserve/kserve@aaac4e294dae): the predictor's labels and annotations
# (ComponentExtensionSpec, pkg/apis/serving/v1beta1/component.go:121-128) become its pods'
# metadata (pkg/controller/v1beta1/inferenceservice/components/predictor.go:161-172) and, with
# a workerSpec, its worker pods' too (predictor.go:536-553). A framework key is one container
# named "kserve-container" whatever its name (its Default, e.g. predictor_sklearn.go:36); the
# `model` key merges into the runtime's container of that name (predictor.go:435), keeping a
# name it has. Without a framework key the containers are the custom component
# (pkg/apis/serving/v1beta1/predictor.go:168-193, defaulted by inference_service_defaults.go:204):
# its first container is renamed "kserve-container" when it is alone or unnamed
# (predictor_custom.go:65-72), always in a transformer or an explainer
# (transformer_custom.go:51-57, explainer_custom.go:47-53).
_FRAMEWORKS = ("sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml",
               "lightgbm", "paddle", "huggingface", "art", "alibi")
_KSERVE_NAME = "kserve-container"
_KSERVE_WORKER = ("spec.predictor.workerSpec: the predictor's labels and annotations reach its "
                  "worker pods too, so one set of TensorFusion annotations cannot fit both")


def _kserve_component(name: str) -> Shape:
    """In KServe's default Serverless mode a component runs as a Knative Service, whose pods
    also run Knative's queue-proxy (see ``_KNATIVE``); in RawDeployment mode they do not.
    The view counts it either way: the webhook then finds ``inject-container`` naming the
    GPU container where it needs one, and the name is harmless where it does not."""
    custom = Slot(("containers", ANY), _KSERVE_NAME, FIRST if name == "predictor" else FIRST_ALWAYS)
    frameworks = (Slot((fw,), _KSERVE_NAME, ALWAYS) for fw in _FRAMEWORKS)
    return Shape(("spec", name), (), (), (custom, Slot(("model",), _KSERVE_NAME), *frameworks),
                 ("workerSpec",) if name == "predictor" else None, _KSERVE_WORKER,
                 added=("queue-proxy",))


_KSERVE = tuple(_kserve_component(c) for c in ("predictor", "transformer", "explainer"))

# LLMInferenceService (v1alpha1, v1alpha2): spec.labels/annotations are copied to the pods of
# spec.template and, multi-node, to both leader and worker (kserve/kserve/pkg/controller/
# v1alpha2/llmisvc/workload_single_node.go:181-182, workload_multi_node.go:265-270
# @aaac4e294dae); prefill likewise from spec.prefill.labels/annotations
# (workload_single_node.go:286-287, workload_multi_node.go:397-402).
_LLM_WORKER = ("{anchor}.worker: {anchor}.labels and annotations reach both the leader "
               "({anchor}.template) and the worker pods, so one set of TensorFusion annotations "
               "cannot fit both")


def _llm_workload(anchor: str) -> Shape:
    return Shape(_p(anchor), (), ("template",), (Slot(("template", "containers", ANY)),),
                 ("worker",), _LLM_WORKER.format(anchor=anchor))


_LLM = (_llm_workload("spec"), _llm_workload("spec.prefill"))

# Argo Workflows (argoproj/argo-workflows@f016ad89eb26): a step's pod gets spec.podMetadata,
# then its template's `metadata` over it (workflow/controller/workflowpod.go:1325-1334), so
# the template's is the one to write. Its container or script runs as "main" whatever its
# name; a containerSet's containers keep theirs, "main" when unnamed (workflowpod.go:417-420,
# container_set_template.go:20); sidecars are added as they are (workflowpod.go:1927-1932),
# and so is the controller's own "wait" (or "supervisor") container (workflowpod.go:537-545).
_ARGO_STEP = ("metadata",), (), (Slot(("container",), "main", ALWAYS),
                                 Slot(("script",), "main", ALWAYS),
                                 Slot(("containerSet", "containers", ANY), "main"),
                                 Slot(("sidecars", ANY)))
# spec.templateDefaults is merged into every template of its type (operator.go:4649-4692).
_ARGO_DEFAULTS = ("Argo spec.templateDefaults: merged into every template of its type, so "
                  "TensorFusion annotations there would reach every step's pod; write the GPU "
                  "resources in the steps that use them")


# A podSpecPatch, the workflow's or a template's, is merged into each pod's spec after the
# template is built (workflow/controller/workflowpod.go, createWorkflowPod, hasPodSpecPatch):
# GPU resources it sets are not in the template tfpolicy reads and writes.
_ARGO_PATCH = ("Argo podSpecPatch: merged into the pod's spec after its template, so the GPU "
               "resources it sets are not in the template tfpolicy writes; write them in the "
               "template's container")


def _argo(kind: str, workflow: str) -> TemplateKind:
    """An Argo kind whose WorkflowSpec is at ``workflow``."""
    step = Shape(_p(f"{workflow}.templates[*]"), *_ARGO_STEP, added=("wait",))
    return TemplateKind("argoproj.io", kind, (), (step,), (
        Report(_p(f"{workflow}.templateDefaults"), _ARGO_DEFAULTS),
        Report(_p(f"{workflow}.podSpecPatch"), _ARGO_PATCH),
        Report(_p(f"{workflow}.templates[*].podSpecPatch"), _ARGO_PATCH)))


_ARGO = ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate")

# MPIJob v1alpha1 (kubeflow/mpi-operator/pkg/controllers/v1alpha1/mpi_job_controller.go
# @8943cf734da7, the last commit with it): the worker StatefulSet and the launcher Job are both
# copies of spec.template, its labels and annotations included (:1023-1031, :1119-1126); the
# launcher's first container has its resources cleared (:1155-1157) and the workers' gets
# the GPU count set (:1035-1041), from spec.gpus/processingUnits or else the template's own
# limit (:568-608). TensorFusion annotations in the template would reach the launcher too.
_MPI_V1ALPHA1 = tuple(Report(("spec", key), (
    f"MPIJob v1alpha1 spec.{key}: the operator sets the workers' GPU resources from this "
    "count itself; move to MPIJob v2beta1 and write them in the Worker's template"))
    for key in ("gpus", "processingUnits"))
_MPI_V1ALPHA1_TEMPLATE = Report(_p("spec.template"), (
    "MPIJob v1alpha1 spec.template: the operator builds the launcher from it too, labels and "
    "annotations included, so TensorFusion annotations would reach the launcher, which needs "
    "no GPU; move to MPIJob v2beta1, whose mpiReplicaSpecs give it a template of its own"))

# Knative (knative/serving@98e5ef90aa70): a Service's template is its Configuration's
# (pkg/reconciler/service/resources/configuration.go:66), whose metadata is the Revision's
# (pkg/reconciler/configuration/resources/revision.go:35); the pods get the revision's labels
# but the routing ones and its annotations but autoscaling.knative.dev/* and four of Knative's
# own (pkg/reconciler/revision/resources/meta.go:55-70, :88-96; deploy.go:381, :408-409).
# Unnamed containers are named by config-defaults' container-name-template, "user-container"
# (pkg/apis/config/defaults.go:61), or user-container-N when there are several or the name is
# taken (pkg/apis/serving/v1/revision_defaults.go:79-88, :266-289). Every pod also runs the
# queue-proxy container (pkg/reconciler/revision/resources/deploy.go:213).
_KNATIVE = Shape(("spec", "template"), ("metadata",), ("spec",),
                 (Slot(("spec", "containers", ANY), "user-container", NUMBERED),),
                 added=("queue-proxy",))

# Seldon Core v2 (SeldonIO/seldon-core@7b77f8b78e87, operator/controllers/reconcilers/server/):
# the pods get the Server's own metadata labels and annotations over its ServerConfig's
# (statefulset_reconciler.go:48-49, :85-91), and spec.podSpec is merged into the
# ServerConfig's pod spec, containers by name (server_reconciler.go:127,
# common/patch_utils.go:72-99). The ServerConfig's other containers (rclone and agent in the
# shipped ones, k8s/yaml/components.yaml) make every pod one of several containers.
_SELDON = Shape((), ("metadata",), ("spec", "podSpec"),
                (Slot(("spec", "podSpec", "containers", ANY)),), added=("rclone", "agent"))

# NIMService (NVIDIA/k8s-nim-operator@f63f74d7ad22): spec.labels and spec.annotations do reach
# the pods (api/apps/v1alpha1/nimservice_types.go:1277-1286, manifests/deployment.yaml), but the
# operator gives the container GPUs of its own when spec.resources names none (internal/
# controller/platform/standalone/nimservice.go:1312-1370), and builds a KServe
# InferenceService or a LeaderWorkerSet instead on request: not read as one pod here.
# llmaz (InftyAI/llmaz@3c13ff343e28): a Playground's pod template has no metadata at all
# (pkg/controller/inference/playground_controller.go:340-360), its backendRuntimeConfig
# resources merged into the container (:297-300); an OpenModel's flavor limits overwrite the
# model-runner container's requests and limits (service_controller.go:293-331).
# TrainJob: spec.trainer.resourcesPerNode is merged into the runtime's "node" container
# (kubeflow/trainer/pkg/runtime/core/trainingruntime.go:205-241@8c0f5059bd51).
# Without nvidia.com/gpu in spec.resources (nor spec.draResources), the operator assigns the
# pod GPUs itself, from the cached profile's tensor parallelism or 1, multiNode per worker
# (internal/controller/platform/standalone/nimservice.go@f63f74d7ad22, addGPUResources, called
# for an optimized NIMCache's profile): the pod asks for GPUs though no resource names one.
_NIM = ("NIMService: the NIM Operator builds the pod from the NIMService's fields and gives "
        "it GPUs of its own when spec.resources names none, which tfpolicy does not model; "
        "change its GPU resources by hand")
_NIM_AUTO = ("{kind}: {where} names no nvidia.com/gpu, so when its NIMCache holds an optimized "
             "profile the NIM Operator gives the pod nvidia.com/gpu itself (the profile's "
             "tensor parallelism, 1 without one; multiNode: per worker), GPUs the device "
             "plugin allocates and nothing migrates; write the count in {where}.limits")
_NIM_GIVES = (_p("resources"), _p("draResources"))
# KubeAI (kubeai-project/kubeai@f442a2cd): a Model's resourceProfile "<name>:<n>" gives each of
# its pods n times the profile's requests and limits (internal/modelcontroller/
# model_controller.go:272-305), the profiles living in the operator's config (charts/kubeai/
# values.yaml:105-260: nvidia-gpu-*, amd-gpu-*, each 1 GPU). The pods' labels are KubeAI's own
# (model_controller.go:217-226) and of the Model's annotations only the pod address ones
# reach them (:228-248): nothing a Model says reaches TensorFusion's webhook.
_KUBEAI = ("KubeAI Model: resourceProfile <profile>:<n> gives each model pod n times the "
           "profile's GPUs (kubeai-project/kubeai internal/modelcontroller/"
           "model_controller.go:272-305), and no field of the Model reaches its pods' labels or "
           "annotations (model_controller.go:217-248); to migrate the model pods, add "
           "TensorFusion's label through KubeAI's modelServerPods.jsonPatches (internal/config/"
           "system.go:256-259) or let TensorFusion's auto-migration take them")
_KUBEAI_GPU = r"(?i)[a-z0-9.-]*(?:gpu|npu|tpu)[a-z0-9.-]*:[0-9]*[1-9][0-9]*"
_REPORTED = (
    TemplateKind("apps.nvidia.com", "NIMService", (), reports=(
        Report(_p("spec.resources"), _NIM),
        Report(_p("spec"), _NIM_AUTO.format(kind="NIMService", where="spec.resources"),
               _NIM_GIVES))),
    # NIMPipeline: each service with enabled: true (nimpipeline_controller.go:133) has its
    # spec made into a NIMService (:178-186@f63f74d7ad22): reported as one, since a
    # NIMService is.
    TemplateKind("apps.nvidia.com", "NIMPipeline", (), reports=(
        Report(_p("spec.services[*].spec.resources"), (
            "NIMPipeline: each service becomes a NIMService, whose pod the NIM Operator builds "
            "from its fields, with GPUs of its own when spec.resources names none, which "
            "tfpolicy does not model; change its GPU resources by hand")),
        Report(_p("spec.services[*]"), _NIM_AUTO.format(
            kind="NIMPipeline service", where="its spec.resources"),
            tuple(("spec", *p) for p in _NIM_GIVES), ("enabled",)))),
    TemplateKind("llmaz.io", "OpenModel", (), reports=(Report(
        _p("spec.inferenceConfig.flavors"), (
            "llmaz OpenModel: the controller copies a flavor's limits into the pod it builds, "
            "and no field of the model reaches the pod's annotations")),)),
    TemplateKind("inference.llmaz.io", "Playground", (), reports=(Report(
        _p("spec.backendRuntimeConfig"), (
            "llmaz Playground: the controller builds the pod from its BackendRuntime, and no "
            "field of the Playground reaches the pod's annotations")),)),
    TemplateKind("kubeai.org", "Model", (), reports=(Report(
        _p("spec.resourceProfile"), _KUBEAI, named=_KUBEAI_GPU, marker="resourceProfile"),)),
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
    # MPIJob v1alpha1 has one spec.template (refused, above); v1alpha2 and later one per replica
    + [TemplateKind("kubeflow.org", "MPIJob", (_p("spec.mpiReplicaSpecs.*.template"),),
                    reports=_MPI_V1ALPHA1, refused=(_MPI_V1ALPHA1_TEMPLATE,))]
    + _kinds("kubeflow.org", "XGBoostJob", "spec.xgbReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "PaddleJob", "spec.paddleReplicaSpecs.*.template")
    # KubeRay builds each head and worker pod from its group's template, metadata included
    # (ray-project/kuberay/ray-operator/controllers/ray/common/pod.go:214-218, :595-597
    # @feeaf72facab); LeaderWorkerSet its leader and worker StatefulSets from the two templates,
    # the leader from workerTemplate when it has none (kubernetes-sigs/lws/pkg/controllers/
    # leaderworkerset_controller.go:777-781@060ab4da17ee).
    + [_ray("ray.io", "RayCluster", "spec"), _ray("ray.io", "RayJob", "spec.rayClusterSpec"),
       _ray("ray.io", "RayService", "spec.rayClusterConfig")]
    + _kinds("leaderworkerset.x-k8s.io", "LeaderWorkerSet",
             "spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate")
    # JobSet: each Job is its replicated job's template, metadata and spec (kubernetes-sigs/
    # jobset/pkg/controllers/jobset_controller.go:938-947@08dfbdfd6827), so the pods are the
    # Job template's. A Trainer runtime's spec.template.spec is the JobSet's spec (kubeflow/
    # trainer/pkg/runtime/core/trainingruntime.go:175-191@8c0f5059bd51); the labels and
    # annotations beside it go to the JobSet object, not the pods (:152-153, :186-187).
    + _kinds("jobset.x-k8s.io", "JobSet", f"spec.{_JOBSET}")
    + _kinds("trainer.kubeflow.org", "TrainingRuntime ClusterTrainingRuntime",
             f"spec.template.spec.{_JOBSET}")
    + _kinds("kubeflow.org", "TrainingRuntime ClusterTrainingRuntime",
             f"spec.template.spec.{_JOBSET}")
    + [TemplateKind("serving.knative.dev", k, (), (_KNATIVE,))
       for k in ("Service", "Configuration")]
    + [TemplateKind("mlops.seldon.io", "Server", (), (_SELDON,))]
    # Volcano: a task's pod is its template's labels, annotations and spec (volcano-sh/volcano/
    # pkg/controllers/job/job_controller_util.go:46-59@ed72c7c815a9).
    + _kinds("batch.volcano.sh", "Job", "spec.tasks[*].template")
    # HyperPod: the training operator's source is not public, so how it copies a template to
    # its pods could not be read; its CRD, as aws/sagemaker-hyperpod-cli models it (src/
    # sagemaker/hyperpod/training/config/hyperpod_pytorch_job_unified_config.py@6c3aea5b3b1b,
    # read through the code search), has replicaSpecs[*].template as the pod template.
    + _kinds("sagemaker.amazonaws.com", "HyperPodPyTorchJob", "spec.replicaSpecs[*].template")
    # KAITO: inference.template, copied, is the pod template of the StatefulSet it creates
    # (kaito-project/kaito/pkg/workspace/manifests/manifests.go:276-357@056b8280b1a8).
    + _kinds("kaito.sh", "Workspace", "inference.template")
    # AIBrix: a StormService's role sets are copies of spec.template.spec (vllm-project/aibrix/
    # pkg/controller/stormservice/rolesetoperations.go:62-71@e3e10f9e4aeb), and a role's pods
    # take its template's labels, annotations and spec (pkg/controller/util/controller_utils.go:
    # 72-94), through a PodSet when podGroupSize > 1 (roleset/podset_rollsyncer.go:378-399). A
    # fleet's RayClusters are copies of its template (rayclusterfleet/sync.go:194).
    + _kinds("orchestration.aibrix.ai", "StormService", "spec.template.spec.roles[*].template")
    + [_ray("orchestration.aibrix.ai", "RayClusterFleet", "spec.template.spec")]
    + [TemplateKind(g, "InferenceService", (), _KSERVE, (Report(_p("spec.default"), (
        "InferenceService v1alpha2 (spec.default): KServe serves v1beta1 only; convert the "
        "manifest to v1beta1 first")),)) for g in ("serving.kserve.io", "serving.kubeflow.org")]
    + [TemplateKind("serving.kserve.io", k, (), _LLM)
       for k in ("LLMInferenceService", "LLMInferenceServiceConfig")]
    + [_argo(k, "spec") for k in _ARGO] + [_argo("CronWorkflow", "spec.workflowSpec")]
    # Katib makes each trial from trialSpec, parameters filled in, so its kind decides (kubeflow/
    # katib/pkg/controller.v1beta1/experiment/manifest/generator.go:89-107@33c8ff4e5d18)
    + [TemplateKind("kubeflow.org", "Experiment", (), nested=(_p("spec.trialTemplate.trialSpec"),))]
    + list(_REPORTED)
    + list(SERVING_KINDS)
)
