"""What the simulated webhook knows about the cluster: Helm values, pools, namespaces.

Built from the chart's values (reference §3.1): only
``controller.nvidiaOperatorProgressiveMigration`` and
``dynamicConfig.autoMigration.{enable, scope}`` change admission. Field names
of ``autoMigration`` are matched case-insensitively, as ``sigs.k8s.io/yaml``
does. A present-but-empty rule set (``includes: {}``) is kept distinct from an
absent one, because it matches nothing (reference §3.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpu import GpuResources


@dataclass(frozen=True, slots=True)
class Pool:
    """A GPUPool as the webhook reads it (reference §4 GPUPool)."""

    name: str
    is_default: bool = False
    default_using_local_gpu: bool | None = None  # None: unset, which means local
    default_qos: str = ""  # spec.qosConfig.defaultQoS; empty means medium


# The pool the Helm chart creates (reference §4: cluster `tensor-fusion`, pool `shared`).
HELM_DEFAULT_POOL = Pool("tensor-fusion-shared", is_default=True)


@dataclass(frozen=True, slots=True)
class ModelCapacity:
    """Full capacity of one GPU model, as Quantity strings (``"312"``, ``"80Gi"``)."""

    tflops: str
    vram: str


@dataclass(frozen=True, slots=True)
class QuotaDefaults:
    """A namespace GPUResourceQuota's ``spec.single`` defaults (reference §2.1 step 3h)."""

    tflops_request: str = ""
    vram_request: str = ""
    tflops_limit: str = ""
    vram_limit: str = ""


@dataclass(frozen=True, slots=True)
class Rules:
    """One ``AutoMigrationRules``; ``None`` marks an absent field (reference §3.2)."""

    namespace_names: tuple[str, ...] | None = None
    namespace_selector: Mapping[str, Any] | None = None
    pod_selector: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Scope:
    includes: Rules | None = None
    excludes: Rules | None = None


@dataclass(frozen=True, slots=True)
class AutoMigration:
    enable: bool = False
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Everything admission reads besides the pod itself.

    ``namespace_labels`` feeds ``namespaceSelector``; ``gpu_models`` feeds
    ``dedicated-gpu``; ``quotas`` maps a namespace to its GPUResourceQuota
    defaults. The mappings make the record unhashable; it is still immutable
    by convention.
    """

    progressive_migration: bool = False
    auto_migration: AutoMigration = AutoMigration()
    pools: tuple[Pool, ...] = (HELM_DEFAULT_POOL,)
    namespace_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    gpu_models: Mapping[str, ModelCapacity] = field(default_factory=dict)
    quotas: Mapping[str, QuotaDefaults] = field(default_factory=dict)
    extra_resources: tuple[str, ...] = ()

    @property
    def resources(self) -> GpuResources:
        return GpuResources(self.extra_resources)


# Owners whose pods carry `pod-template-hash` (reference §2.3; DESIGN §1 enabledReplicas).
HASHED_OWNERS = frozenset({"Deployment"})
NO_CONTROLLER = frozenset({"", "Pod"})


@dataclass(frozen=True, slots=True)
class AdmissionContext:
    """Where a pod template lives and what the cluster looks like.

    ``owner_kind`` is the workload kind (``Pod`` = no controller).
    ``pod_template_hash`` defaults from it: only Deployment-made ReplicaSets
    stamp the label. ``taken_over`` is the owner's enabled-replicas counter
    (pods of this revision already admitted as TensorFusion pods).
    """

    namespace: str
    workload: str
    owner_kind: str = "Deployment"
    pod_template_hash: bool | None = None
    replicas: int | None = None
    taken_over: int = 0
    webhook: WebhookConfig = WebhookConfig()

    @property
    def has_controller(self) -> bool:
        return self.owner_kind not in NO_CONTROLLER

    @property
    def has_pod_template_hash(self) -> bool:
        if self.pod_template_hash is not None:
            return self.pod_template_hash
        return self.owner_kind in HASHED_OWNERS


def webhook_config(
    values: Mapping[str, Any] | None = None,
    *,
    pools: tuple[Pool, ...] | None = None,
    namespace_labels: Mapping[str, Mapping[str, str]] | None = None,
    gpu_models: Mapping[str, ModelCapacity] | None = None,
    quotas: Mapping[str, QuotaDefaults] | None = None,
    extra_resources: tuple[str, ...] = (),
) -> WebhookConfig:
    """The webhook configuration for Helm ``values`` (``None``: chart defaults)."""
    values = values or {}
    controller = _mapping(values.get("controller"), "controller")
    dynamic = _mapping(values.get("dynamicConfig"), "dynamicConfig")
    return WebhookConfig(
        progressive_migration=_bool(
            controller.get("nvidiaOperatorProgressiveMigration"),
            "controller.nvidiaOperatorProgressiveMigration",
        ),
        auto_migration=auto_migration(_lookup(dynamic, "autoMigration")),
        pools=pools if pools is not None else (HELM_DEFAULT_POOL,),
        namespace_labels=dict(namespace_labels or {}),
        gpu_models=dict(gpu_models or {}),
        quotas=dict(quotas or {}),
        extra_resources=tuple(extra_resources),
    )


def auto_migration(raw: Any) -> AutoMigration:
    """``dynamicConfig.autoMigration`` as a record (absent: disabled)."""
    where = "dynamicConfig.autoMigration"
    block = _mapping(raw, where)
    scope_raw = _lookup(block, "scope")
    enable = _bool(_lookup(block, "enable"), f"{where}.enable")
    if scope_raw is None:
        return AutoMigration(enable=enable)
    scope = _mapping(scope_raw, f"{where}.scope")
    return AutoMigration(enable=enable, scope=Scope(
        includes=_rules(_lookup(scope, "includes"), f"{where}.scope.includes"),
        excludes=_rules(_lookup(scope, "excludes"), f"{where}.scope.excludes"),
    ))


def _rules(raw: Any, where: str) -> Rules | None:
    if raw is None:
        return None
    block = _mapping(raw, where)
    names = _lookup(block, "namespaceNames")
    if names is not None and not isinstance(names, list):
        raise TfpolicyError(f"{where}.namespaceNames must be a list of names")
    return Rules(
        namespace_names=None if names is None else tuple(str(n) for n in names),
        namespace_selector=_selector(_lookup(block, "namespaceSelector"), where),
        pod_selector=_selector(_lookup(block, "podSelector"), where),
    )


def _selector(raw: Any, where: str) -> Mapping[str, Any] | None:
    if raw is None:
        return None
    return _mapping(raw, f"{where} selector")


def _lookup(block: Mapping[str, Any], name: str) -> Any:
    """Case-insensitive field lookup, as Go's JSON decoding does."""
    for k, v in block.items():
        if isinstance(k, str) and k.lower() == name.lower():
            return v
    return None


def _mapping(raw: Any, where: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise TfpolicyError(f"{where} must be a mapping, got {type(raw).__name__}")
    return raw


def _bool(raw: Any, where: str) -> bool:
    if raw is None:
        return False
    if not isinstance(raw, bool):
        raise TfpolicyError(f"{where} must be true or false, got {raw!r}")
    return raw
