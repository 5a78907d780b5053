"""promote reads the sync from Argo CD: a real repository, snapshots holding an
Application at the rung before and at the rung."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.promote.promote_repo import Repo, at_hour, capped

ADVANCED, STOP, WAIT = 0, 1, 75


def application(revision: str, **status: object) -> dict:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": "inference", "namespace": "argocd",
                         "creationTimestamp": "2026-11-02T10:14:07Z"},
            "spec": {"source": {"repoURL": "https://github.com/acme/gpu-fleet",
                                "path": "manifests", "targetRevision": "main"}},
            "status": {"sync": {"status": "Synced", "revision": revision},
                       "health": {"status": "Healthy"}, **status}}


def snapshot(repo: Repo, hour: int, app: dict, name: str) -> tuple[str, str]:
    argo = repo.path.parent / f"{name}-argocd.yaml"
    argo.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [app]}))
    return at_hour(capped(), hour, repo.path.parent, name), str(argo)


def test_argo_decides_the_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    repo.git("remote", "add", "origin", "git@github.com:acme/gpu-fleet.git")
    first = repo.head()
    workloads, argo = snapshot(repo, 9, application(first), "one")
    assert repo.promote("--cluster", workloads, "--cluster", argo, "--commit", hour=9) == ADVANCED
    out = capsys.readouterr().out
    assert f"Argo CD Application argocd/inference runs revision {first} (Synced), which holds" in out
    second = repo.head()
    # objects newer than the rung's commit, but Argo CD still runs the rung before: a wait
    workloads, argo = snapshot(repo, 10, application(first), "two")
    assert repo.promote("--cluster", workloads, "--cluster", argo, "--commit", hour=10) == WAIT
    out = capsys.readouterr().out
    assert f"runs revision {first} (Synced), which does not hold the rung's commit {second[:12]}" in out
    # a snapshot older than the commit, but Argo CD runs it: no wait on object times
    workloads, argo = snapshot(repo, 9, application(second), "three")
    assert repo.promote("--cluster", workloads, "--cluster", argo, "--commit", hour=10) == ADVANCED
    out = capsys.readouterr().out
    assert "older than the commit" not in out
    third = repo.head()
    failed = application(third, operationState={"phase": "Failed", "message": "webhook denied"})
    workloads, argo = snapshot(repo, 11, failed, "four")
    assert repo.promote("--cluster", workloads, "--cluster", argo, "--commit", hour=11) == STOP
    out = capsys.readouterr().out
    assert "its last sync failed (operationState.phase Failed): webhook denied" in out
    assert "[takeover-25]" in repo.rung  # rolled back a rung


def test_without_argo_the_object_times_rule_is_said(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    assert repo.promote("--cluster", at_hour(capped(), 9, tmp_path, "c"), "--commit",
                        hour=9) == ADVANCED
    assert "the repository has no remote, so no Argo CD or Flux object" in capsys.readouterr().out
    repo.git("remote", "add", "origin", "https://github.com/acme/gpu-fleet")
    assert repo.promote("--cluster", at_hour(capped(), 11, tmp_path, "d"), "--commit",
                        hour=11) == ADVANCED
    assert ("no Argo CD Application, Flux Kustomization or HelmRelease in the snapshot deploys "
            "manifests; judged by object times") in capsys.readouterr().out


def test_only_a_commit_id_reaches_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the cluster reports is never an option of git's: anything but a hexadecimal id
    holds nothing, and git is not asked."""
    from tfpolicy.promote import git

    repo = Repo(tmp_path / "repo", monkeypatch)
    head = repo.head()
    assert git.holds(repo.path, head, head)
    for revision in ("--output=/tmp/x", "HEAD", "main", head.upper(), f"{head} --all", ""):
        assert not git.holds(repo.path, head, revision)
