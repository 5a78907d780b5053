"""What the GitOps controllers say about the rung: does the cluster run its commit yet
(docs/hosts.md, "What promote reads from Argo CD and Flux").

Pure: the snapshot's objects by kind (Argo CD ``Application``, Flux ``Kustomization``,
``HelmRelease`` and the ``GitRepository`` each reads), the repository (its folder of
manifests and its remotes' addresses), the rung's commit and a ``contains(revision)``
answer in; a :class:`Judgement` out. :func:`deployer` finds the one object that deploys the
folder, :func:`judged` reads its status; :func:`sync_of` does both. The kinds are read
only from their own API groups (:func:`in_group`), each field checked for its type when
the snapshot is read (:func:`check_shape`).
"""

from __future__ import annotations

from collections.abc import Callable

from tfpolicy.gitops.addresses import chart_commit_of, commit_of, normalised_url
from tfpolicy.gitops.argo import judged_application
from tfpolicy.gitops.deployers import Deployer, Objects, Repository, Several, deployer
from tfpolicy.gitops.flux import judged_helm_release, judged_kustomization
from tfpolicy.gitops.kinds import GROUPS, KINDS, RESOURCES, check_shape, in_group
from tfpolicy.gitops.verdicts import NO_DEPLOYER, NO_REMOTE, Judgement, Rung, State, shown

__all__ = ["GROUPS", "KINDS", "RESOURCES", "Deployer", "Judgement", "Repository", "Several",
           "State", "chart_commit_of", "check_shape", "commit_of", "deployer", "in_group",
           "judged", "normalised_url", "sync_of"]

# One reader per deploying kind.
JUDGES: dict[str, Callable[[Deployer, Rung], Judgement]] = {
    "Application": judged_application,
    "Kustomization": judged_kustomization,
    "HelmRelease": judged_helm_release,
}


def judged(sync: Deployer | Several | None, commit: str, contains: Callable[[str], bool],
           repo: Repository) -> Judgement:
    """``sync``: what :func:`deployer` found for ``repo``; ``commit``: the commit that set
    the rung; ``contains(c)``: whether commit ``c`` (full or abbreviated, as the
    controller reports it) holds the rung's commit."""
    if sync is None and not repo.urls:
        return Judgement(State.NONE, (NO_REMOTE,))
    if sync is None:
        return Judgement(State.NONE, (NO_DEPLOYER.format(path=shown(repo.path)),))
    if isinstance(sync, Several):
        named = ", ".join(_named(d) for d in sync.deployers)
        return Judgement(State.NONE, (
            f"{len(sync.deployers)} objects deploy {shown(sync.path)} alike ({named}); which "
            "one runs the rung is not guessed: judged by object times",))
    return JUDGES[sync.kind](sync, Rung(commit, contains))


def sync_of(objects: Objects, repo: Repository, commit: str,
            contains: Callable[[str], bool]) -> Judgement:
    """:func:`judged` of what :func:`deployer` finds."""
    return judged(deployer(objects, repo), commit, contains, repo)


def _named(found: Deployer) -> str:
    source = f" (spec.sources[{found.source}])" if found.source is not None else ""
    return f"{found.controller}{source}, path {shown(found.path)}"
