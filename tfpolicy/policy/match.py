"""Which policy owns a pod template (docs/policy.md: AND across fields, OR
within a list, exclude wins).

AND across fields, OR inside a list; names and namespaces take shell
globs; ``exclude`` has the same shape and wins; the first policy whose match
selects a workload owns it. Every miss comes with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from tfpolicy.policy.model import Match, Policy
from tfpolicy.records import Record


class Subject(Record):
    """What matching sees of one pod template and its workload."""

    kind: str
    name: str
    namespace: str
    labels: Mapping[str, Any]
    pod_labels: Mapping[str, Any]


def misses(match: Match, subject: Subject) -> list[str]:
    """Why ``match`` does not select ``subject`` (empty: it does)."""
    reasons = []
    if match.kinds is not None and subject.kind not in match.kinds:
        reasons.append(f"kind {subject.kind} not in {list(match.kinds)}")
    if match.namespaces is not None and not _globbed(subject.namespace, match.namespaces):
        reasons.append(f"namespace {subject.namespace!r} not in {list(match.namespaces)}")
    if match.names is not None and not _globbed(subject.name, match.names):
        reasons.append(f"name {subject.name!r} not in {list(match.names)}")
    if match.selector is not None and (miss := match.selector.miss(subject.labels)):
        reasons.append(f"workload {miss}")
    if match.pod_selector is not None and (miss := match.pod_selector.miss(subject.pod_labels)):
        reasons.append(f"pod template {miss}")
    return reasons


def _globbed(value: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(value, pattern) for pattern in patterns)


def explain(policy: Policy, subject: Subject) -> list[str]:
    """Why ``policy`` does not select ``subject``; empty when it does."""
    reasons = misses(policy.match, subject)
    if not reasons and policy.exclude is not None and not misses(policy.exclude, subject):
        reasons.append("excluded by the policy's exclude")
    return reasons


def selects(policy: Policy, subject: Subject) -> bool:
    return not explain(policy, subject)
