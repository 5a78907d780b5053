"""Should the webhook take over a native GPU pod by itself? (NexusGPU/tensor-fusion
internal/webhook/v1/auto_migration.go:34-120)

Order: opt-out label, then ``enable``, then no scope = every GPU pod, then
excludes win, then includes must match. A rule set matches when ANY of its
present fields matches; ``includes: {}`` has no field and matches nothing.
A rule that cannot be evaluated lets the pod through unchanged
(internal/webhook/v1/pod_webhook.go:108-113).
"""

from __future__ import annotations

from collections.abc import Mapping

from tfpolicy.admission import keys
from tfpolicy.admission.config import AutoMigration, Rules
from tfpolicy.admission.selector import SelectorError, matches
from tfpolicy.records import Record

_NAME_LABEL = "kubernetes.io/metadata.name"


class Verdict(Record):
    migrate: bool
    reason: str


def should_auto_migrate(
    config: AutoMigration,
    namespace: str,
    pod_labels: Mapping[str, str],
    namespace_labels: Mapping[str, Mapping[str, str]],
) -> Verdict:
    """Whether auto-migration takes over this GPU pod, and why (not)."""
    if pod_labels.get(keys.ENABLED) == keys.FALSE:
        return Verdict(False, f"opted out with {keys.ENABLED}=false")
    if not config.enable:
        return Verdict(False, "auto-migration is not enabled")
    if config.scope is None:
        return Verdict(True, "auto-migration has no scope: every GPU pod")
    # Every Namespace carries its own name as a label (Kubernetes ≥ 1.21).
    ns_labels = {_NAME_LABEL: namespace, **namespace_labels.get(namespace, {})}
    target = _Target(namespace, pod_labels, ns_labels)
    try:
        return _scoped(config.scope.includes, config.scope.excludes, target)
    except SelectorError as error:
        return Verdict(False, f"auto-migration rule could not be evaluated: {error}")


class _Target(Record):
    namespace: str
    pod_labels: Mapping[str, str]
    namespace_labels: Mapping[str, str]


def _scoped(includes: Rules | None, excludes: Rules | None, target: _Target) -> Verdict:
    if excludes is not None and rules_match(excludes, target):
        return Verdict(False, "excluded by autoMigration.scope.excludes")
    if includes is not None and not rules_match(includes, target):
        return Verdict(False, "not included by autoMigration.scope.includes")
    return Verdict(True, "in autoMigration.scope")


def rules_match(rules: Rules, target: _Target) -> bool:
    """OR over the present fields of one rule set."""
    if rules.namespace_names is not None and target.namespace in rules.namespace_names:
        return True
    if rules.namespace_selector is not None and matches(
        rules.namespace_selector, target.namespace_labels
    ):
        return True
    return rules.pod_selector is not None and matches(rules.pod_selector, target.pod_labels)
