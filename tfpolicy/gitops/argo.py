"""An Argo CD Application's word on the rung (argoproj/argo-cd
pkg/apis/application/v1alpha1/types.go, v3):

- ``status.operationState`` (:1457) is the last sync: ``phase`` ``Failed`` or ``Error``
  (gitops-engine/pkg/sync/common/types.go:82) is a stop with its ``message``; ``Running``
  towards the rung's commit (``operation.sync.revision(s)``, :1445) has it rolling out;
- ``status.conditions`` (:1926): a ``SyncError`` (the automated sync failed, :1912) is a
  stop with its ``message``; a ``ComparisonError`` (:1910: the repository could not be
  fetched or rendered, often for a while only) or an ``InvalidSpecError`` (:1908) says
  nothing of the rung: a wait, with its ``message``;
- ``status.health`` (:1960): ``Degraded`` (gitops-engine/pkg/health/health.go:28) is a
  stop with its message and those of the degraded resources of ``status.resources``
  (:2235); ``Progressing`` or ``Missing`` at the rung's commit is shown, rolling;
- ``status.sync`` (:1948): ``Synced`` at ``revision`` (``revisions[i]`` for the i-th of
  ``spec.sources``) runs that commit; out of sync, the last successful sync's
  ``syncResult.revision(s)`` (:1763) is what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.gitops.addresses import commit_of
from tfpolicy.gitops.deployers import Deployer
from tfpolicy.gitops.verdicts import Judgement, Rung, running, shown, stop, unreadable, wait

FAILED = ("Failed", "Error")
ERRORS = ("SyncError",)
UNCOMPARED = ("ComparisonError", "InvalidSpecError")
ROLLING = ("Progressing", "Missing")
_DEGRADED_SHOWN = 3  # resources named under a degraded Application


def judged_application(found: Deployer, rung: Rung) -> Judgement:
    status = found.item.get("status") or {}
    return (_failed(found, status) or _degraded(found, status) or _uncompared(found, status)
            or _syncing(found, status, rung) or _synced(found, status, rung))


def _failed(found: Deployer, status: Mapping[str, Any]) -> Judgement | None:
    operation = status.get("operationState") or {}
    phase = operation.get("phase")
    if phase in FAILED:
        at = _revision(found, operation.get("syncResult") or {}) or _revision(
            found, (operation.get("operation") or {}).get("sync") or {})
        where = f", revision {shown(at)}" if at else ""
        return stop(found.controller, f"its last sync failed (operationState.phase {phase}"
                                      f"{where}): {_message(operation)}")
    for condition in status.get("conditions") or []:
        if condition.get("type") in ERRORS:
            return stop(found.controller, f"{condition['type']}: {_message(condition)}")
    return None


def _degraded(found: Deployer, status: Mapping[str, Any]) -> Judgement | None:
    health = status.get("health") or {}
    if health.get("status") != "Degraded":
        return None
    message = f": {shown(health['message'])}" if health.get("message") else ""
    sick = [r for r in status.get("resources") or []
            if (r.get("health") or {}).get("status") == "Degraded"]
    lines = [f"{shown(r.get('kind'))} {shown(_where(r))}: "
             f"{shown(r['health'].get('message') or 'Degraded')}"
             for r in sick[:_DEGRADED_SHOWN]]
    return stop(found.controller, f"health Degraded{message}", *lines)


def _uncompared(found: Deployer, status: Mapping[str, Any]) -> Judgement | None:
    for condition in status.get("conditions") or []:
        if condition.get("type") in UNCOMPARED:
            return wait(found.controller, f"cannot compare the repository "
                                          f"({condition['type']}: {_message(condition)})")
    return None


def _syncing(found: Deployer, status: Mapping[str, Any], rung: Rung) -> Judgement | None:
    """A sync running: shown, rolling, when it goes to the rung's commit; else a wait."""
    operation = status.get("operationState") or {}
    if operation.get("phase") not in ("Running", "Terminating"):
        return None
    target = _revision(found, (operation.get("operation") or {}).get("sync") or {})
    commit = commit_of(target)
    if commit is None:
        return wait(found.controller, f"is syncing (operationState.phase "
                                      f"{operation['phase']}): {_message(operation)}")
    return running(found.controller, target, rung.contains(commit), rung, " (syncing)",
                   f"its sync is {str(operation['phase']).lower()}")


def _synced(found: Deployer, status: Mapping[str, Any], rung: Rung) -> Judgement:
    sync, operation = status.get("sync") or {}, status.get("operationState") or {}
    state = str(sync.get("status") or "Unknown")
    revision = _revision(found, sync) if state == "Synced" else ""
    words = f" ({state})"
    if not revision and operation.get("phase") == "Succeeded":
        revision = _revision(found, operation.get("syncResult") or {})
        words = f" (its last sync; now {state})"
    if not revision:
        return wait(found.controller, f"is {shown(state)} and reports no successful sync of "
                                      "the repository yet")
    commit = commit_of(revision)
    if commit is None:
        return unreadable(found.controller, revision)
    health = str((status.get("health") or {}).get("status") or "")
    rolling = f"its health is {health}" if health in ROLLING else ""
    return running(found.controller, revision, rung.contains(commit), rung, shown(words),
                   rolling)


def _revision(found: Deployer, part: Mapping[str, Any]) -> str:
    """``revision``, or ``revisions[i]`` for the i-th of ``spec.sources``."""
    if found.source is None:
        return str(part.get("revision") or "")
    listed = part.get("revisions") or []
    return str(listed[found.source]) if found.source < len(listed) else ""


def _where(resource: Mapping[str, Any]) -> str:
    name = str(resource.get("name") or "")
    return f"{resource['namespace']}/{name}" if resource.get("namespace") else name


def _message(part: Mapping[str, Any]) -> str:
    return shown(part.get("message") or "no message")
