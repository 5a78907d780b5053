"""The webhook's configuration from the chart's Helm values (NexusGPU/tensor-fusion
charts/tensor-fusion/values.yaml:94-100, :988).

Read, each defaulting to ``charts/tensor-fusion/values.yaml``:
``cluster.{enabled, name, pool.name}`` (the default pool is
``<cluster>-<pool>``, ``templates/tensorfusioncluster.yaml:76-82``),
``providerConfigs.nvidia.{enabled, name, inUseResourceNames}`` (the GPU
resource names), ``controller.admissionWebhooks.failurePolicy``,
``controller.nvidiaOperatorProgressiveMigration`` and
``dynamicConfig.autoMigration.{enable, scope}``. What the values change in
scheduling (isolation mode policy, score weights) is read on the scheduler's
side, by ``tfpolicy.inventory.settings_from_values``.
Field names of ``autoMigration`` are matched case-insensitively, as
``sigs.k8s.io/yaml`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission.config import (
    AutoMigration,
    ModelCapacity,
    Pool,
    ProfileSpec,
    QuotaDefaults,
    Rules,
    Scope,
    WebhookConfig,
)
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import CHART_PROVIDER, Provider

FAILURE_POLICIES = ("Fail", "Ignore")


def webhook_config(
    values: Mapping[str, Any] | None = None,
    *,
    pools: tuple[Pool, ...] | None = None,
    namespace_labels: Mapping[str, Mapping[str, str]] | None = None,
    gpu_models: Mapping[str, ModelCapacity] | None = None,
    quotas: Mapping[str, QuotaDefaults] | None = None,
    extra_resources: tuple[str, ...] = (),
    providers: tuple[Provider, ...] = (),
    profiles: Mapping[tuple[str, str], ProfileSpec] | None = None,
) -> WebhookConfig:
    """The webhook configuration for Helm ``values`` (``None``: chart defaults).

    ``providers`` are ProviderConfig objects loaded besides the chart's; one
    with the chart provider's name replaces it.
    """
    values = values or {}
    controller = _mapping(values.get("controller"), "controller")
    dynamic = _mapping(values.get("dynamicConfig"), "dynamicConfig")
    return WebhookConfig(
        progressive_migration=_bool(controller.get("nvidiaOperatorProgressiveMigration"),
                                    "controller.nvidiaOperatorProgressiveMigration"),
        auto_migration=auto_migration(_lookup(dynamic, "autoMigration")),
        pools=pools if pools is not None else chart_pools(values),
        namespace_labels=dict(namespace_labels or {}),
        gpu_models=dict(gpu_models or {}),
        quotas=dict(quotas or {}),
        extra_resources=tuple(extra_resources),
        providers=_providers(values, providers),
        profiles=dict(profiles or {}),
        failure_policy=_failure_policy(controller),
    )


def chart_pools(values: Mapping[str, Any]) -> tuple[Pool, ...]:
    """The chart's default pool ``<cluster.name>-<cluster.pool.name>``; none when disabled."""
    cluster = _mapping(values.get("cluster"), "cluster")
    if cluster.get("enabled") is False:
        return ()
    pool = _mapping(cluster.get("pool"), "cluster.pool")
    name = (f"{_text(cluster, 'name', 'tensor-fusion', 'cluster')}-"
            f"{_text(pool, 'name', 'shared', 'cluster.pool')}")
    return (Pool(name, is_default=True),)


def _providers(values: Mapping[str, Any], loaded: tuple[Provider, ...]) -> tuple[Provider, ...]:
    configs = _mapping(values.get("providerConfigs"), "providerConfigs")
    nvidia = _mapping(configs.get("nvidia"), "providerConfigs.nvidia")
    chart: tuple[Provider, ...] = ()
    if nvidia.get("enabled") is not False:
        names = nvidia.get("inUseResourceNames")
        if names is not None and not isinstance(names, list):
            raise TfpolicyError("providerConfigs.nvidia.inUseResourceNames must be a list")
        chart = (Provider(_text(nvidia, "name", CHART_PROVIDER.name, "providerConfigs.nvidia"),
                          CHART_PROVIDER.vendor,
                          CHART_PROVIDER.resources if names is None
                          else tuple(str(n) for n in names)),)
    given = {p.name for p in loaded}
    return tuple(p for p in chart if p.name not in given) + loaded


def _failure_policy(controller: Mapping[str, Any]) -> str:
    hooks = _mapping(controller.get("admissionWebhooks"), "controller.admissionWebhooks")
    policy = _text(hooks, "failurePolicy", "Fail", "controller.admissionWebhooks")
    if policy not in FAILURE_POLICIES:
        raise TfpolicyError(
            f"controller.admissionWebhooks.failurePolicy must be Fail or Ignore, got {policy!r}")
    return policy


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


def _text(block: Mapping[str, Any], name: str, default: str, where: str) -> str:
    raw = block.get(name)
    if raw is None or raw == "":
        return default  # Helm's `| default`
    if not isinstance(raw, str):
        raise TfpolicyError(f"{where}.{name} must be a string, got {type(raw).__name__}")
    return raw


def _bool(raw: Any, where: str) -> bool:
    if raw is None:
        return False
    if not isinstance(raw, bool):
        raise TfpolicyError(f"{where} must be true or false, got {raw!r}")
    return raw
