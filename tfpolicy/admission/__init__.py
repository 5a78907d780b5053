"""Offline simulation of the TensorFusion pod admission webhook (docs/commands.md, admission).

Pure: takes dicts and records, returns records. Entry points:

- :func:`admit` — one pod template in, an :class:`Admission` out (decision,
  admitted Pod, changes, scheduler :class:`AllocationRequest` or the error).
- :func:`webhook_config` — the webhook's view of the cluster from Helm values.
- :func:`operator_objects` — ProviderConfigs, WorkloadProfiles, quotas, pools
  and GPU model capacities from the operator's objects.
- :func:`taken_over` — how many replicas ``enabled-replicas`` converts.
- :func:`webhook_traps` — warnings about webhook behaviour that surprises users.

Each name is loaded from its module on first use, so a command that
asks for one (``check`` for the traps) loads only what that one needs.

Facts: NexusGPU/tensor-fusion internal/webhook/v1/ (pod_webhook.go, tf_parser.go,
auto_migration.go), cited in each module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tfpolicy.admission.admission_records import (
        Admission,
        AllocationRequest,
        Change,
        ChangeKind,
        Decision,
    )
    from tfpolicy.admission.automigrate import Verdict, should_auto_migrate
    from tfpolicy.admission.config import (
        HELM_DEFAULT_POOL,
        AdmissionContext,
        AutoMigration,
        ModelCapacity,
        Pool,
        ProfileSpec,
        QuotaDefaults,
        Rules,
        Scope,
        WebhookConfig,
    )
    from tfpolicy.admission.helm import auto_migration, webhook_config
    from tfpolicy.admission.objects import Found, OperatorObjects, operator_objects
    from tfpolicy.admission.replicas import over_cap, taken_over
    from tfpolicy.admission.traps import Trap, webhook_traps
    from tfpolicy.admission.webhook import admit, submitted_pod

_MODULES = {
    "Admission": "admission_records",
    "AdmissionContext": "config",
    "AllocationRequest": "admission_records",
    "AutoMigration": "config",
    "Change": "admission_records",
    "ChangeKind": "admission_records",
    "Decision": "admission_records",
    "Found": "objects",
    "HELM_DEFAULT_POOL": "config",
    "ModelCapacity": "config",
    "OperatorObjects": "objects",
    "Pool": "config",
    "ProfileSpec": "config",
    "QuotaDefaults": "config",
    "Rules": "config",
    "Scope": "config",
    "Trap": "traps",
    "Verdict": "automigrate",
    "WebhookConfig": "config",
    "admit": "webhook",
    "auto_migration": "helm",
    "operator_objects": "objects",
    "over_cap": "replicas",
    "should_auto_migrate": "automigrate",
    "submitted_pod": "webhook",
    "taken_over": "replicas",
    "webhook_config": "helm",
    "webhook_traps": "traps",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "HELM_DEFAULT_POOL",
    "Admission",
    "AdmissionContext",
    "AllocationRequest",
    "AutoMigration",
    "Change",
    "ChangeKind",
    "Decision",
    "Found",
    "ModelCapacity",
    "OperatorObjects",
    "Pool",
    "ProfileSpec",
    "QuotaDefaults",
    "Rules",
    "Scope",
    "Trap",
    "Verdict",
    "WebhookConfig",
    "admit",
    "auto_migration",
    "operator_objects",
    "over_cap",
    "should_auto_migrate",
    "submitted_pod",
    "taken_over",
    "webhook_config",
    "webhook_traps",
]
