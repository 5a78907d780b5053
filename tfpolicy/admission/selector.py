"""Kubernetes ``metav1.LabelSelector`` matching (NexusGPU/tensor-fusion
internal/webhook/v1/auto_migration.go:85, matchesRules).

Semantics follow ``LabelSelectorAsSelector``: ``matchLabels`` and every
``matchExpressions`` entry are ANDed; an empty selector ``{}`` matches every
label set; a malformed selector is an error (the webhook then lets the pod
through unchanged, pod_webhook.go:108-113).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.policy.selectors import Selector


class SelectorError(ValueError):
    """A selector Kubernetes would refuse to convert."""


# Operator -> whether it takes values (Kubernetes refuses the other way round).
_NEEDS_VALUES = {"In": True, "NotIn": True, "Exists": False, "DoesNotExist": False}


def matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy ``selector`` (raises :class:`SelectorError`)."""
    if not isinstance(selector, Mapping):
        raise SelectorError(f"label selector must be a mapping, got {selector!r}")
    if not isinstance(selector.get("matchLabels") or {}, Mapping):
        raise SelectorError("matchLabels must be a mapping")
    for expr in selector.get("matchExpressions") or []:
        _check(expr)
    return Selector.parse(selector).miss(labels) is None


def _check(expr: Any) -> None:
    if not isinstance(expr, Mapping) or "key" not in expr:
        raise SelectorError(f"matchExpressions entry needs a key: {expr!r}")
    operator = expr.get("operator")
    if operator not in _NEEDS_VALUES:
        raise SelectorError(f"{operator!r} is not a valid label selector operator")
    if _NEEDS_VALUES[str(operator)] != bool(expr.get("values")):
        verb = "must" if _NEEDS_VALUES[str(operator)] else "must not"
        raise SelectorError(f"values {verb} be given for operator {operator}")
