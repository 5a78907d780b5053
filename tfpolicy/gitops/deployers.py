"""Which object of the snapshot deploys the repository's folder of manifests.

A candidate reads the same repository (:func:`~tfpolicy.gitops.addresses.normalised_url`)
and a path related to the folder:

- an Argo CD Application: ``spec.source`` or each of ``spec.sources[]``, its ``repoURL``
  and ``path`` (argoproj/argo-cd pkg/apis/application/v1alpha1/types.go:196);
- a Flux Kustomization: ``spec.path`` (absent: the repository's top) in the
  GitRepository its ``spec.sourceRef`` names, whose ``spec.url`` is the address
  (fluxcd/kustomize-controller api/v1/kustomization_types.go:92 and :147);
- a Flux HelmRelease: ``spec.chart.spec.chart``, the chart's folder, in the GitRepository
  its ``spec.chart.spec.sourceRef`` names (fluxcd/helm-controller
  api/v2/helmrelease_types.go:381).

The closest kind of fit wins: the deployer's path is the folder; else it lies inside the
folder (an overlay under it); else it holds the folder (a Flux path above it, a chart
whose templates it is, an Argo CD directory read with ``recurse: true``). Two candidates
of the closest fit are :class:`Several`: which one runs the rung is not guessed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tfpolicy.gitops.addresses import normalised_url
from tfpolicy.gitops.kinds import in_group
from tfpolicy.gitops.verdicts import shown
from tfpolicy.records import Record, field

Objects = Mapping[str, Sequence[Mapping[str, Any]]]
EXACT, INSIDE, HOLDS = 0, 1, 2  # how the deployer's path fits the folder, closest first
_NAMES = {"Application": "Argo CD Application", "Kustomization": "Flux Kustomization",
          "HelmRelease": "Flux HelmRelease"}


class Repository(Record):
    """The repository promote works in: the folder of manifests, relative to the git top
    (posix, ``.`` for the top), and the addresses its remotes are fetched from."""

    path: str
    urls: tuple[str, ...]


class Deployer(Record):
    kind: str  # Application, Kustomization or HelmRelease
    namespace: str
    name: str
    path: str  # the folder it deploys, relative to the repository's top
    fit: int  # EXACT, INSIDE or HOLDS
    source: int | None = None  # which of an Argo CD Application's spec.sources
    item: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def controller(self) -> str:
        """``Argo CD Application argocd/inference``, as the output names it."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{_NAMES[self.kind]} {shown(where)}"


class Several(Record):
    """More than one object deploys the folder, none closer than the others."""

    path: str
    deployers: tuple[Deployer, ...]


def deployer(objects: Objects, repo: Repository) -> Deployer | Several | None:
    """The one object that deploys ``repo.path`` from one of ``repo.urls``; :class:`Several`
    when more fit as closely; None when none does."""
    folder = _folder(repo.path)
    urls = {normalised_url(u) for u in repo.urls}
    found = sorted(_candidates(objects, folder, urls), key=lambda d: (
        d.fit, d.kind, d.namespace, d.name, d.source or 0))
    closest = [d for d in found if d.fit == found[0].fit] if found else []
    if len(closest) > 1:
        return Several(folder, tuple(closest))
    return closest[0] if closest else None


def _candidates(objects: Objects, folder: str, urls: set[str]) -> Iterator[Deployer]:
    sources = _git_repositories(objects, urls)
    for item in _of(objects, "Application"):
        yield from _applications(item, folder, urls)
    for item in _of(objects, "Kustomization"):
        spec = item.get("spec") or {}
        if _reads(item, spec.get("sourceRef"), sources):
            yield from _fitting(item, str(spec.get("path") or "."), folder, True)
    for item in _of(objects, "HelmRelease"):
        chart = ((item.get("spec") or {}).get("chart") or {}).get("spec") or {}
        if chart.get("chart") and _reads(item, chart.get("sourceRef"), sources):
            yield from _fitting(item, str(chart["chart"]), folder, True)


def _applications(item: Mapping[str, Any], folder: str, urls: set[str]) -> Iterator[Deployer]:
    """Each source of the Application that reads the repository; with ``spec.sources``
    Argo CD ignores ``spec.source`` (types.go:99)."""
    spec = item.get("spec") or {}
    many = spec.get("sources")
    listed = list(enumerate(many)) if many else [(None, spec.get("source") or {})]
    for index, source in listed:
        if not _reads_from(source, urls):
            continue
        recurse = (source.get("directory") or {}).get("recurse") is True
        for found in _fitting(item, str(source["path"]), folder, recurse):
            yield Deployer(found.kind, found.namespace, found.name, found.path, found.fit,
                           index, item)


def _reads_from(source: Any, urls: set[str]) -> bool:
    """An Argo CD source of a folder (a ``ref``-only source has no path) in the repository."""
    return (isinstance(source, Mapping) and source.get("path") is not None
            and normalised_url(str(source.get("repoURL") or "")) in urls)


def _fitting(item: Mapping[str, Any], path: str, folder: str,
             holds_below: bool) -> Iterator[Deployer]:
    """The deployer when ``path`` fits ``folder``; ``holds_below``: a path above the folder
    deploys what lies under it."""
    mine = _folder(path)
    fit = (EXACT if mine == folder else INSIDE if _below(mine, folder)
           else HOLDS if holds_below and _below(folder, mine) else None)
    if fit is not None:
        meta = item["metadata"]
        yield Deployer(str(item["kind"]), str(meta.get("namespace") or ""), str(meta["name"]),
                       mine, fit, None, item)


def _git_repositories(objects: Objects, urls: set[str]) -> set[tuple[str, str]]:
    """(namespace, name) of each GitRepository that fetches the repository."""
    return {_key(g) for g in _of(objects, "GitRepository")
            if normalised_url(str((g.get("spec") or {}).get("url") or "")) in urls}


def _reads(item: Mapping[str, Any], ref: Any, sources: set[tuple[str, str]]) -> bool:
    """A Flux object's ``sourceRef`` names one of ``sources`` (its namespace by default)."""
    if not isinstance(ref, Mapping) or ref.get("kind") != "GitRepository":
        return False
    return (str(ref.get("namespace") or _key(item)[0]), str(ref.get("name") or "")) in sources


def _of(objects: Objects, kind: str) -> list[Mapping[str, Any]]:
    return [o for o in objects.get(kind, ()) if in_group(o)]


def _key(item: Mapping[str, Any]) -> tuple[str, str]:
    meta = item.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _folder(path: str) -> str:
    """``./apps/gpu/`` → ``apps/gpu``; the top is ``.``."""
    return posixpath.normpath(path.strip().lstrip("/") or ".")


def _below(inner: str, outer: str) -> bool:
    """``inner`` lies strictly under ``outer``."""
    return inner != outer and (outer == "." or inner.startswith(outer + "/"))
