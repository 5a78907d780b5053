"""Policies the hosts get inline rather than as files, and the ArgoCD ``stage`` switch.

A KRM functionConfig can be a ``MigrationPolicy`` itself, or a ConfigMap
holding policy YAML (docs/hosts.md, "KRM function"); both go through the same
schema check as policy files, so a bad one is reported at its line.
"""

from __future__ import annotations

import re

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import Finding
from tfpolicy.policy.model import (
    Locator,
    Override,
    Policy,
    PolicyInvalidError,
    Stage,
    build_policy,
    check_policy,
)
from tfpolicy.policy.schema import brief
from tfpolicy.records import replace
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.suggest import closest

_SEPARATOR = re.compile(r"[,\s]+")


def split_refs(text: str) -> tuple[str, ...]:
    """Policy names or paths from one comma- or whitespace-separated string."""
    return tuple(part for part in _SEPARATOR.split(text) if part)


# What only stage rightsize may carry (schemas/policy.schema.json, the if/then/else on stage).
_RIGHTSIZE_ONLY = frozenset({"isolation", "resources", "autoscale"})


def policies_from_text(text: str, file: str) -> list[Policy]:
    """Every MigrationPolicy document of ``text``; any violation raises ``PolicyInvalidError``."""
    policies: list[Policy] = []
    findings: list[Finding] = []
    for raw in yamlio.split_documents(text):
        parsed = yamlio.parse_document(raw.text, file=file, line=raw.line)
        if parsed.node is None:
            continue
        locate = _locator(parsed, raw.line)
        problems = check_policy(parsed.data, file, locate)
        findings.extend(problems)
        if not problems:
            line, column = locate(())
            policies.append(build_policy(parsed.data, file, line + 1, column + 1))
    if findings:
        raise PolicyInvalidError(findings)
    if not policies:
        raise TfpolicyError("no MigrationPolicy documents", file=file)
    return policies


def _locator(parsed: yamlio.Parsed, offset: int) -> Locator:
    def locate(path: tuple[str | int, ...]) -> tuple[int, int]:
        line, column = yamlio.locate(parsed.node, path)
        return offset + line, column

    return locate


def with_stage(policies: PolicySet, stage: str) -> PolicySet:
    """Every policy moved to ``stage`` (e.g. ``rollback`` for the whole app at once)."""
    try:
        target = Stage(stage)
    except ValueError:
        names = [s.value for s in Stage]
        close = closest(stage, names)
        hint = f"did you mean {close}? " if close else ""
        raise TfpolicyError(f"unknown stage {brief(stage)} ({hint}valid: {', '.join(names)})"
                            ) from None
    return PolicySet.of([_restaged(p, target) for p in policies.policies])


def _restaged(policy: Policy, target: Stage) -> Policy:
    if target is Stage.RIGHTSIZE:
        if policy.settings.resources is None:
            raise TfpolicyError(f"stage rightsize needs spec.resources, which policy "
                                f"{policy.name!r} does not set", file=policy.file,
                                line=policy.line)
        return replace(policy, stage=target)
    settings = replace(policy.settings, isolation=None, resources=None, autoscale=None)
    overrides = tuple(_trimmed(o) for o in policy.overrides)
    return replace(policy, stage=target, settings=settings, overrides=overrides)


def _trimmed(override: Override) -> Override:
    return replace(override, fields=override.fields - _RIGHTSIZE_ONLY)
