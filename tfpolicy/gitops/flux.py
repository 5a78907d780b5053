"""A Flux Kustomization's or HelmRelease's word on the rung.

Both follow the GitOps Toolkit's conditions (fluxcd/pkg apis/meta/conditions.go:43-63):
``Stalled`` true is a stop; ``Ready`` false is a stop with its ``reason`` and ``message``
(kustomize-controller: ``BuildFailed``, ``HealthCheckFailed``,
``PruneFailed``, ``ReconciliationFailed``, fluxcd/kustomize-controller
docs/spec/v1/kustomizations.md:2347; helm-controller: ``InstallFailed``,
``UpgradeFailed``, ``TestFailed``, ``RollbackFailed``, …, fluxcd/helm-controller
api/v2/condition_types.go:41-89), unless the reason says it is still under way
(``Progressing``, ``ProgressingWithRetry``), or waits on another object or on the
source (``DependencyNotReady``; ``ArtifactFailed``: the source or its path could not be
fetched, fluxcd/kustomize-controller internal/controller/kustomization_controller.go:215
and :366-379): a wait; a ``Healthy`` false (kustomizations.md:2347) is a stop.
``Reconciling`` true, or ``Ready`` unknown, is a reconciliation under way.

The revision that runs: a Kustomization's ``status.lastAppliedRevision``, set once its
manifests are applied and healthy (fluxcd/kustomize-controller
internal/controller/kustomization_controller.go:534), while
``lastAttemptedRevision`` (:384) is the one being applied; a HelmRelease's latest
``deployed`` release in ``status.history`` (its ``chartVersion``; fluxcd/helm-controller
api/v2/snapshot_types.go:139), and ``status.lastAttemptedRevision`` the chart version
being installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.gitops.addresses import chart_commit_of, commit_of
from tfpolicy.gitops.deployers import Deployer
from tfpolicy.gitops.verdicts import Judgement, Rung, running, shown, stop, unreadable, wait

UNDER_WAY = ("Progressing", "ProgressingWithRetry")
WAITING = ("DependencyNotReady", "ArtifactFailed")  # another object, or the source, not ready


def judged_kustomization(found: Deployer, rung: Rung) -> Judgement:
    status = found.item.get("status") or {}
    applied = str(status.get("lastAppliedRevision") or "")
    attempted = str(status.get("lastAttemptedRevision") or "")
    return _conditions(found, status, attempted) or _at(
        found, rung, (applied, commit_of(applied)), (attempted, commit_of(attempted)),
        _reconciling(status))


def judged_helm_release(found: Deployer, rung: Rung) -> Judgement:
    status = found.item.get("status") or {}
    deployed = _deployed(status)
    attempted = str(status.get("lastAttemptedRevision") or "")
    return _conditions(found, status, attempted) or _at(
        found, rung, (deployed, chart_commit_of(deployed)),
        (attempted, chart_commit_of(attempted)), _reconciling(status))


def _conditions(found: Deployer, status: Mapping[str, Any], attempted: str) -> Judgement | None:
    """A stop or a wait the conditions say, whatever the revision."""
    if (found.item.get("spec") or {}).get("suspend") is True:
        return wait(found.controller, "is suspended (spec.suspend): it applies nothing until "
                                      "it is resumed")
    conditions = _by_type(status)
    stalled, ready = conditions.get("Stalled", {}), conditions.get("Ready", {})
    at = f" at revision {shown(attempted)}" if attempted else ""
    if stalled.get("status") == "True":
        return stop(found.controller, f"Stalled ({_words(stalled)}){at}")
    if ready.get("status") == "False" and ready.get("reason") in WAITING:
        return wait(found.controller, f"is not ready ({_words(ready)})")
    if ready.get("status") == "False" and ready.get("reason") not in UNDER_WAY:
        return stop(found.controller, f"Ready False ({_words(ready)}){at}")
    healthy = conditions.get("Healthy", {})
    if healthy.get("status") == "False":
        return stop(found.controller, f"Healthy False ({_words(healthy)}){at}")
    return None


def _at(found: Deployer, rung: Rung, applied: tuple[str, str | None],
        attempted: tuple[str, str | None], reconciling: str) -> Judgement:
    """SHOWN at the applied revision; rolling out at the attempted one while it
    reconciles; else a wait (or NONE when the revision names no commit)."""
    (revision, commit), (trying, next_commit) = applied, attempted
    if commit is not None and rung.contains(commit):
        return running(found.controller, revision, True, rung, "", reconciling)
    if reconciling and next_commit is not None and rung.contains(next_commit):
        return running(found.controller, trying, True, rung, " (being applied)", reconciling)
    if not revision:
        return wait(found.controller, "reports no applied revision yet")
    if commit is None:
        return unreadable(found.controller, revision)
    return running(found.controller, revision, False, rung)


def _reconciling(status: Mapping[str, Any]) -> str:
    """Why a reconciliation is under way, or "" when none is."""
    conditions = _by_type(status)
    if conditions.get("Reconciling", {}).get("status") == "True":
        return f"it is reconciling ({_words(conditions['Reconciling'])})"
    ready = conditions.get("Ready", {})
    if ready.get("status") == "Unknown" or ready.get("reason") in UNDER_WAY:
        return f"it is not ready yet ({_words(ready)})"
    return ""


def _deployed(status: Mapping[str, Any]) -> str:
    """The chart version of the latest release Helm marks ``deployed``; "" when none."""
    releases = [r for r in status.get("history") or [] if r.get("status") == "deployed"]
    latest = max(releases, key=lambda r: _number(r.get("version")), default=None)
    return str(latest.get("chartVersion") or "") if latest else ""


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _by_type(status: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {str(c.get("type")): c for c in status.get("conditions") or []}


def _words(condition: Mapping[str, Any]) -> str:
    reason = shown(condition.get("reason") or "no reason")
    return f"{reason}: {shown(condition['message'])}" if condition.get("message") else reason
