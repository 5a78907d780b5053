"""Offline simulation of the TensorFusion pod admission webhook (DESIGN §4).

Pure: takes dicts and records, returns records. Entry points:

- :func:`admit` — one pod template in, an :class:`Admission` out (decision,
  admitted Pod, changes, scheduler :class:`AllocationRequest` or the error).
- :func:`webhook_config` — the webhook's view of the cluster from Helm values.
- :func:`operator_objects` — ProviderConfigs, WorkloadProfiles, quotas, pools
  and GPU model capacities from the operator's objects.
- :func:`taken_over` — how many replicas ``enabled-replicas`` converts.
- :func:`webhook_traps` — warnings about webhook behaviour that surprises users.

Facts: reference/tensor-fusion.md §1–§3, §9.
"""

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
from tfpolicy.admission.records import (
    Admission,
    AllocationRequest,
    Change,
    ChangeKind,
    Decision,
)
from tfpolicy.admission.replicas import over_cap, taken_over
from tfpolicy.admission.traps import Trap, webhook_traps
from tfpolicy.admission.webhook import admit, submitted_pod

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
