"""The GitOps controllers' kinds a snapshot may hold, each from its own API group, and the
types of the fields :mod:`tfpolicy.gitops` reads, checked when the snapshot is read: a
wrongly typed field is one error naming the object and the field, never an internal error
later (the same rule as the workloads' and the operator's fields, docs/verify.md).

The groups keep namesakes out: ``kustomize.config.k8s.io`` ``Kustomization`` is a
kustomization.yaml, ``app.k8s.io`` ``Application`` another project's kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.shapes import LIST, MAP, SCALAR, TEXT, TEXTS, Path, fits, found, under

# kind → (API group, resource name as ``kubectl get <resource>.<group>`` takes it)
GROUPS: dict[str, tuple[str, str]] = {
    "Application": ("argoproj.io", "applications"),
    "Kustomization": ("kustomize.toolkit.fluxcd.io", "kustomizations"),
    "HelmRelease": ("helm.toolkit.fluxcd.io", "helmreleases"),
    "GitRepository": ("source.toolkit.fluxcd.io", "gitrepositories"),
}
KINDS = tuple(GROUPS)
RESOURCES = tuple(f"{plural}.{group}" for group, plural in GROUPS.values())


_REF: dict[Path, str] = {("kind",): TEXT, ("name",): TEXT, ("namespace",): TEXT}
_ARGO_SOURCE: dict[Path, str] = {("repoURL",): TEXT, ("path",): TEXT, ("directory",): MAP,
                ("directory", "recurse"): SCALAR}
_REVISIONS: dict[Path, str] = {("revision",): TEXT, ("revisions",): TEXTS}
_CONDITION: dict[Path, str] = {("type",): SCALAR, ("status",): SCALAR, ("reason",): SCALAR,
              ("message",): SCALAR}
_HEALTH: dict[Path, str] = {("status",): SCALAR, ("message",): SCALAR}
_RESOURCE: dict[Path, str] = {**_REF, ("health",): MAP, **under(("health",), _HEALTH)}
_RELEASE: dict[Path, str] = {("status",): SCALAR, ("version",): SCALAR,
                             ("chartVersion",): SCALAR}
COMMON: dict[Path, str] = {
    ("kind",): TEXT, ("apiVersion",): TEXT, ("metadata",): MAP, ("metadata", "name"): TEXT,
    ("metadata", "namespace"): TEXT, ("spec",): MAP, ("status",): MAP,
    ("status", "conditions"): LIST, **under(("status", "conditions", "*"), _CONDITION)}
BY_KIND: dict[str, dict[Path, str]] = {
    # argoproj/argo-cd pkg/apis/application/v1alpha1/types.go:77 (ApplicationSpec), :196
    # (ApplicationSource), :1219 (ApplicationStatus), :1457 (OperationState), :1948 (SyncStatus)
    "Application": {
        ("spec", "source"): MAP, **under(("spec", "source"), _ARGO_SOURCE),
        ("spec", "sources"): LIST, **under(("spec", "sources", "*"), _ARGO_SOURCE),
        ("status", "sync"): MAP, ("status", "sync", "status"): SCALAR,
        **under(("status", "sync"), _REVISIONS),
        ("status", "health"): MAP, **under(("status", "health"), _HEALTH),
        ("status", "operationState"): MAP, ("status", "operationState", "phase"): SCALAR,
        ("status", "operationState", "message"): SCALAR,
        ("status", "operationState", "syncResult"): MAP,
        **under(("status", "operationState", "syncResult"), _REVISIONS),
        ("status", "operationState", "operation"): MAP,
        ("status", "operationState", "operation", "sync"): MAP,
        **under(("status", "operationState", "operation", "sync"), _REVISIONS),
        ("status", "resources"): LIST,
        **under(("status", "resources", "*"), _RESOURCE)},
    # fluxcd/kustomize-controller api/v1/kustomization_types.go:92 (path), :147 (sourceRef),
    # :344 (KustomizationStatus)
    "Kustomization": {
        ("spec", "path"): TEXT, ("spec", "suspend"): SCALAR, ("spec", "sourceRef"): MAP,
        **under(("spec", "sourceRef"), _REF), ("status", "lastAppliedRevision"): TEXT,
        ("status", "lastAttemptedRevision"): TEXT},
    # fluxcd/helm-controller api/v2/helmrelease_types.go:381 (HelmChartTemplateSpec), :1286
    # (HelmReleaseStatus); api/v2/snapshot_types.go:139 (Snapshot)
    "HelmRelease": {
        ("spec", "suspend"): SCALAR, ("spec", "chart"): MAP, ("spec", "chart", "spec"): MAP,
        ("spec", "chart", "spec", "chart"): TEXT, ("spec", "chart", "spec", "sourceRef"): MAP,
        **under(("spec", "chart", "spec", "sourceRef"), _REF),
        ("status", "lastAttemptedRevision"): SCALAR, ("status", "history"): LIST,
        **under(("status", "history", "*"), _RELEASE)},
    # fluxcd/source-controller api/v1/gitrepository_types.go:89 (url)
    "GitRepository": {("spec", "url"): TEXT},
}


def in_group(item: Mapping[str, Any]) -> bool:
    """One of the kinds above, from its controller's group (any version)."""
    kind = item.get("kind")
    if not isinstance(kind, str) or kind not in GROUPS:
        return False
    return str(item.get("apiVersion", "")).startswith(GROUPS[kind][0] + "/")


def check_shape(item: Mapping[str, Any]) -> None:
    """Raise, naming the object and the field, when a field read has another type."""
    for path, kind in {**COMMON, **BY_KIND.get(str(item.get("kind")), {})}.items():
        for where, value in found(item, path):
            if value is not None and not fits(value, kind):
                raise TfpolicyError(f"{_who(item)}: {'.'.join(where)}: expected {kind}, "
                                    f"found {_shown(value)}")


def _shown(value: Any) -> str:
    if isinstance(value, list):
        odd = [v for v in value if not isinstance(v, (Mapping, str))] or value
        return f"a list holding {_shown(odd[0])}" if odd else "a list"
    names = {Mapping: "a mapping", str: "a string", bool: "a boolean", int: "a number",
             float: "a number"}
    return next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)


def _who(item: Mapping[str, Any]) -> str:
    meta = item.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name, space = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str):
        return str(item.get("kind"))
    return f"{item.get('kind')} {space}/{name}" if isinstance(space, str) and space else (
        f"{item.get('kind')} {name}")
