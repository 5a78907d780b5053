"""Kubernetes ``metav1.LabelSelector`` matching (reference §3.2 scope rules).

Semantics follow ``LabelSelectorAsSelector``: ``matchLabels`` and every
``matchExpressions`` entry are ANDed; an empty selector ``{}`` matches every
label set; a malformed selector is an error (the webhook then lets the pod
through unchanged, reference §9.7).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class SelectorError(ValueError):
    """A selector Kubernetes would refuse to convert."""


_Op = Callable[[Mapping[str, str], str, list[str]], bool]

# Operator -> (needs values, test). Explicit registry (STYLE practice 3).
_OPERATORS: dict[str, tuple[bool, _Op]] = {
    "In": (True, lambda labels, k, vs: k in labels and labels[k] in vs),
    "NotIn": (True, lambda labels, k, vs: k not in labels or labels[k] not in vs),
    "Exists": (False, lambda labels, k, vs: k in labels),
    "DoesNotExist": (False, lambda labels, k, vs: k not in labels),
}


def matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy ``selector`` (raises :class:`SelectorError`)."""
    if not isinstance(selector, Mapping):
        raise SelectorError(f"label selector must be a mapping, got {selector!r}")
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise SelectorError("matchLabels must be a mapping")
    if any(labels.get(str(k)) != str(v) for k, v in match_labels.items()):
        return False
    expressions = selector.get("matchExpressions") or []
    return all(_expression(expr, labels) for expr in expressions)


def _expression(expr: Any, labels: Mapping[str, str]) -> bool:
    if not isinstance(expr, Mapping) or "key" not in expr:
        raise SelectorError(f"matchExpressions entry needs a key: {expr!r}")
    operator = expr.get("operator")
    if operator not in _OPERATORS:
        raise SelectorError(f"{operator!r} is not a valid label selector operator")
    needs_values, test = _OPERATORS[str(operator)]
    values = [str(v) for v in expr.get("values") or []]
    if needs_values != bool(values):
        verb = "must" if needs_values else "must not"
        raise SelectorError(f"values {verb} be given for operator {operator}")
    return test(labels, str(expr["key"]), values)
