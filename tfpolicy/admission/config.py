"""What the simulated webhook knows about the cluster, as records.

The operator's configuration (ProviderConfigs, Helm values, pools,
WorkloadProfiles, GPUResourceQuotas, GPU model capacities) is read by
:mod:`tfpolicy.admission.helm` and :mod:`tfpolicy.admission.objects`; every
field defaults to what the Helm chart installs. A present-but-empty rule set
(``includes: {}``) is kept distinct from an absent one, because it matches
nothing (NexusGPU/tensor-fusion internal/webhook/v1/auto_migration.go:61-80).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import keys
from tfpolicy.admission.native import HAMI_SHARES
from tfpolicy.admission.resources import Resources
from tfpolicy.gpus.resources import GpuResources, Provider
from tfpolicy.records import Record, field
from tfpolicy.workloads.revisions import carries_template_hash


class Pool(Record):
    """A GPUPool as the webhook reads it (NexusGPU/tensor-fusion api/v1/gpupool_types.go:30)."""

    name: str
    is_default: bool = False
    default_using_local_gpu: bool | None = None  # None: unset, which means local
    default_qos: str = ""  # spec.qosConfig.defaultQoS; empty means medium


# The pool the Helm chart creates (charts/tensor-fusion/templates/tensorfusioncluster.yaml).
HELM_DEFAULT_POOL = Pool("tensor-fusion-shared", is_default=True)


class ModelCapacity(Record):
    """Full capacity of one GPU model, as Quantity strings (``"312"``, ``"80Gi"``)."""

    tflops: str
    vram: str


class ProfileSpec(Record):
    """A WorkloadProfile's spec, the base the pod's annotations override
    (internal/webhook/v1/tf_parser.go:40-225).

    ``resources`` are Quantity strings (``""`` = zero). ``gang`` is None when
    ``spec.gangScheduling`` is absent, else its ``minMembers``. The profile's
    pool, locality, isolation and GPU indices are always overwritten by the
    webhook (``tf_parser.go`` ParseTensorFusionInfo), so they are not kept.
    """

    resources: Resources = field(default_factory=Resources)
    qos: str = ""
    sidecar_worker: bool = False
    gpu_count: int = 0
    gpu_model: str = ""
    vendor: str = ""
    partition_id: str = ""
    replicas: int | None = None
    gang: int | None = None


class QuotaDefaults(Record):
    """A namespace GPUResourceQuota's ``spec.single`` defaults (tf_parser.go:147, :645)."""

    tflops_request: str = ""
    vram_request: str = ""
    tflops_limit: str = ""
    vram_limit: str = ""


class Rules(Record):
    """One ``AutoMigrationRules``; ``None`` marks an absent field
    (internal/config/global_config.go:40)."""

    namespace_names: tuple[str, ...] | None = None
    namespace_selector: Mapping[str, Any] | None = None
    pod_selector: Mapping[str, Any] | None = None


class Scope(Record):
    includes: Rules | None = None
    excludes: Rules | None = None


class AutoMigration(Record):
    enable: bool = False
    scope: Scope | None = None


class WebhookConfig(Record):
    """Everything admission reads besides the pod itself.

    ``namespace_labels`` feeds ``namespaceSelector``; ``gpu_models`` feeds
    ``dedicated-gpu``; ``quotas`` maps a namespace to its GPUResourceQuota
    defaults; ``profiles`` maps (namespace, name) to a WorkloadProfile;
    ``providers`` None means the chart's NVIDIA provider, ``()`` none loaded.
    ``failure_policy`` ``Ignore`` admits a pod unchanged when the webhook
    errors (``mutating-webhook.yaml:13``; the chart's value is ``Fail``).
    ``hami_shares``: the names of HAMi's share resources (cores, memory,
    memory percentage) whose container HAMi's own webhook gives a GPU; the
    chart's, plus those the run's policies rename (``spec.hami``).
    The mappings make the record unhashable; it is still immutable by
    convention.
    """

    progressive_migration: bool = False
    auto_migration: AutoMigration = AutoMigration()
    pools: tuple[Pool, ...] = (HELM_DEFAULT_POOL,)
    namespace_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    gpu_models: Mapping[str, ModelCapacity] = field(default_factory=dict)
    quotas: Mapping[str, QuotaDefaults] = field(default_factory=dict)
    extra_resources: tuple[str, ...] = ()
    providers: tuple[Provider, ...] | None = None
    profiles: Mapping[tuple[str, str], ProfileSpec] = field(default_factory=dict)
    failure_policy: str = "Fail"
    hami_shares: frozenset[str] = HAMI_SHARES

    @property
    def resources(self) -> GpuResources:
        return GpuResources(self.extra_resources, self.providers)


NO_CONTROLLER = keys.NO_CONTROLLER


class AdmissionContext(Record):
    """Where a pod template lives and what the cluster looks like.

    ``owner_kind`` is the workload kind (``Pod`` = no controller).
    ``pod_template_hash`` forces whether the pod carries that label; by
    default it does when a Deployment made it or its template has the label
    (the enabled-replicas counter is keyed on it, whatever the owner kind:
    ``pod_counter.go:24-44``). ``taken_over`` is the owner's counter (pods of
    this revision already admitted as TensorFusion pods). ``generate_name``
    names a bare pod that has no name (``tf_parser.go:62-72``).
    """

    namespace: str
    workload: str
    owner_kind: str = "Deployment"
    pod_template_hash: bool | None = None
    replicas: int | None = None
    taken_over: int = 0
    webhook: WebhookConfig = WebhookConfig()
    generate_name: str = ""

    @property
    def has_controller(self) -> bool:
        return self.owner_kind not in NO_CONTROLLER

    def counts_replicas(self, labels: Mapping[str, Any]) -> bool:
        """Whether the pod's enabled-replicas counter key is stable (so the cap bites)."""
        if self.pod_template_hash is not None:
            return self.pod_template_hash
        return carries_template_hash(self.owner_kind, labels)
