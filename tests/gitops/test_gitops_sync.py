"""What Argo CD and Flux say about the rung, read from snapshots as ``kubectl get … -A -o
yaml`` prints them (tests/gitops/snapshots/), against a real git history: the rung before,
the rung's commit, a later commit and a branch that does not hold the rung; whether a
revision holds the rung's commit is asked of git (``merge-base --is-ancestor``), as
promote asks it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from string import Template
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy import gitops
from tfpolicy.gitops import Repository, Several, State
from tfpolicy.render import visible

SNAPSHOTS = ROOT / "tests" / "gitops" / "snapshots"
REPO = Repository("deploy/inference", ("git@github.com:acme/gpu-fleet.git",
                                       "https://github.com/acme/gpu-fleet.git"))
_GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Operator", "GIT_AUTHOR_EMAIL": "operator@example.com",
            "GIT_COMMITTER_NAME": "Operator", "GIT_COMMITTER_EMAIL": "operator@example.com",
            "GIT_AUTHOR_DATE": "2026-11-30T08:00:00Z", "GIT_COMMITTER_DATE": "2026-11-30T08:00:00Z"}
UNKNOWN = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: no commit of any clone


class History:
    """A repository whose commits are the rung before, the rung, a later commit on main,
    and a branch from the rung before."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git("init", "-q", "-b", "main")
        self.previous = self.commit("policies: [takeover-1]\n", "takeover-1")
        self.rung = self.commit("policies: [takeover-25]\n", "takeover-25")
        self.later = self.commit("policies: [takeover-25]\n# reviewed\n", "note")
        self.git("checkout", "-q", "-b", "other", self.previous)
        self.other = self.commit("policies: [takeover-1]\n# other\n", "other")

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                              env={**os.environ, **_GIT_ENV}, check=True)
        return done.stdout.strip()

    def commit(self, text: str, message: str) -> str:
        (self.root / ".tfpolicy.yaml").write_text(text, encoding="utf-8")
        self.git("add", ".tfpolicy.yaml")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def contains(self, revision: str) -> bool:
        """``git merge-base --is-ancestor``: the rung's commit is ``revision`` or before
        it; a commit this clone does not know holds nothing."""
        done = subprocess.run(["git", "merge-base", "--is-ancestor", self.rung, revision],
                              cwd=self.root, capture_output=True, env={**os.environ, **_GIT_ENV},
                              check=False)
        return done.returncode == 0

    def marks(self) -> dict[str, str]:
        named = {"PREVIOUS": self.previous, "RUNG": self.rung, "LATER": self.later,
                 "OTHER": self.other}
        return {**named, **{f"{k}12": v[:12] for k, v in named.items()}}


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    return History(tmp_path_factory.mktemp("history"))


def snapshot(name: str, history: History, **values: str) -> dict[str, list[Mapping[str, Any]]]:
    """The snapshot file's GitOps objects by kind, each checked as the snapshot checks it."""
    text = Template((SNAPSHOTS / name).read_text(encoding="utf-8"))
    marks = history.marks()
    filled = text.substitute(marks, **{k: marks.get(v, v) for k, v in values.items()})
    found: dict[str, list[Mapping[str, Any]]] = {}
    for item in yaml.safe_load(filled)["items"]:
        if gitops.in_group(item):
            gitops.check_shape(item)
            found.setdefault(item["kind"], []).append(item)
    return found


def _judged(name: str, history: History, **values: str) -> gitops.Judgement:
    return gitops.sync_of(snapshot(name, history, **values), REPO, history.rung,
                          history.contains)


ARGO = "Argo CD Application argocd/inference"
FLUX = "Flux Kustomization flux-system/inference"
HELM = "Flux HelmRelease ml-serving/chat"

# (file, its placeholders, state, controller, what its first line says, rolling)
CASES: list[Any] = [
    pytest.param("argo-synced.yaml", {"REVISION": "PREVIOUS", "HEALTH": "Healthy"}, State.WAIT,
                 ARGO, ["runs revision {PREVIOUS} (Synced), which does not hold the rung's "
                        "commit {RUNG12} (as this clone knows the history): the sync has not "
                        "happened yet"], False,
                 id="argo-at-the-rung-before"),
    pytest.param("argo-synced.yaml", {"REVISION": "RUNG", "HEALTH": "Healthy"}, State.SHOWN,
                 ARGO, ["runs revision {RUNG} (Synced), which holds the rung's commit {RUNG12}"],
                 False, id="argo-at-the-rung"),
    pytest.param("argo-synced.yaml", {"REVISION": "LATER", "HEALTH": "Healthy"}, State.SHOWN,
                 ARGO, ["runs revision {LATER} (Synced), which holds"], False,
                 id="argo-after-the-rung"),
    pytest.param("argo-synced.yaml", {"REVISION": "OTHER", "HEALTH": "Healthy"}, State.WAIT,
                 ARGO, ["runs revision {OTHER} (Synced), which does not hold"], False,
                 id="argo-on-a-branch-without-the-rung"),
    pytest.param("argo-synced.yaml", {"REVISION": UNKNOWN, "HEALTH": "Healthy"}, State.WAIT,
                 ARGO, [f"runs revision {UNKNOWN} (Synced), which does not hold"], False,
                 id="argo-at-a-commit-this-clone-lacks"),
    pytest.param("argo-synced.yaml", {"REVISION": "RUNG", "HEALTH": "Progressing"},
                 State.SHOWN, ARGO, ["which holds the rung's commit {RUNG12}; its health is "
                                     "Progressing: the rollout is under way, the pods decide"],
                 True, id="argo-progressing-at-the-rung"),
    pytest.param("argo-synced.yaml", {"REVISION": "PREVIOUS", "HEALTH": "Progressing"},
                 State.WAIT, ARGO, ["runs revision {PREVIOUS} (Synced), which does not hold"],
                 False, id="argo-progressing-at-the-rung-before"),
    pytest.param("argo-multi-source.yaml", {"REVISION": "RUNG"}, State.SHOWN,
                 "Argo CD Application argocd/chat-stack",
                 ["runs revision {RUNG} (Synced), which holds"], False,
                 id="argo-multi-source-reads-its-source"),
    pytest.param("argo-multi-source.yaml", {"REVISION": "PREVIOUS"}, State.WAIT,
                 "Argo CD Application argocd/chat-stack",
                 ["runs revision {PREVIOUS} (Synced), which does not hold"], False,
                 id="argo-multi-source-at-the-rung-before"),
    pytest.param("argo-sync-failed.yaml", {}, State.STOP, ARGO,
                 ["its last sync failed (operationState.phase Failed, revision {RUNG}): one or "
                  "more objects failed to apply, reason: admission webhook "
                  '"mpod.tensor-fusion.ai" denied the request: gpu pool not found\\x1b[2J'],
                 False, id="argo-sync-failed"),
    pytest.param("argo-error-condition.yaml", {"CONDITION": "SyncError", "MESSAGE": (
                     "Failed sync attempt to {RUNG}: one or more synchronization tasks are not "
                     "valid (retried 5 times).")}, State.STOP, ARGO,
                 ["SyncError: Failed sync attempt to {RUNG}: one or more synchronization tasks "
                  "are not valid (retried 5 times)."], False, id="argo-sync-error-condition"),
    pytest.param("argo-error-condition.yaml", {"CONDITION": "ComparisonError", "MESSAGE": (
                     "Failed to load target state: failed to generate manifest for source 1 of "
                     "1: rpc error: code = Unknown desc = context deadline exceeded")},
                 State.WAIT, ARGO,
                 ["cannot compare the repository (ComparisonError: Failed to load target state: "
                  "failed to generate manifest"], False, id="argo-comparison-error"),
    pytest.param("argo-degraded.yaml", {}, State.STOP, ARGO,
                 ["health Degraded",
                  'Deployment ml-serving/chat: Deployment "chat" exceeded its progress '
                  "deadline"], False, id="argo-degraded"),
    pytest.param("argo-out-of-sync.yaml", {"REVISION": "RUNG"}, State.SHOWN, ARGO,
                 ["runs revision {RUNG} (its last sync; now OutOfSync), which holds"], False,
                 id="argo-last-synced-at-the-rung"),
    pytest.param("argo-out-of-sync.yaml", {"REVISION": "PREVIOUS"}, State.WAIT, ARGO,
                 ["runs revision {PREVIOUS} (its last sync; now OutOfSync), which does not "
                  "hold"], False, id="argo-last-synced-before-the-rung"),
    pytest.param("argo-syncing.yaml", {"REVISION": "RUNG"}, State.SHOWN, ARGO,
                 ["runs revision {RUNG} (syncing), which holds the rung's commit {RUNG12}; its "
                  "sync is running: the rollout is under way"], True, id="argo-syncing-the-rung"),
    pytest.param("argo-syncing.yaml", {"REVISION": "PREVIOUS"}, State.WAIT, ARGO,
                 ["runs revision {PREVIOUS} (syncing), which does not hold"], False,
                 id="argo-syncing-the-rung-before"),
    pytest.param("flux-kustomization.yaml", {"APPLIED": "main@sha1:{RUNG}"}, State.SHOWN, FLUX,
                 ["runs revision main@sha1:{RUNG}, which holds the rung's commit {RUNG12}"],
                 False, id="flux-revision-today"),
    pytest.param("flux-kustomization.yaml", {"APPLIED": "main/{RUNG}"}, State.SHOWN, FLUX,
                 ["runs revision main/{RUNG}, which holds"], False, id="flux-revision-before"),
    pytest.param("flux-kustomization.yaml", {"APPLIED": "main@sha1:{PREVIOUS}"}, State.WAIT,
                 FLUX, ["runs revision main@sha1:{PREVIOUS}, which does not hold the rung's "
                        "commit {RUNG12}"], False, id="flux-at-the-rung-before"),
    pytest.param("flux-kustomization.yaml", {"APPLIED": "main/{PREVIOUS}"}, State.WAIT, FLUX,
                 ["runs revision main/{PREVIOUS}, which does not hold"], False,
                 id="flux-revision-before-at-the-rung-before"),
    pytest.param("flux-kustomization.yaml", {"APPLIED": "sha1:{LATER}"}, State.SHOWN, FLUX,
                 ["runs revision sha1:{LATER}, which holds"], False, id="flux-at-a-commit"),
    pytest.param("flux-not-ready.yaml", {}, State.STOP, FLUX,
                 ["Ready False (HealthCheckFailed: health check failed after 5m0.02s: timeout "
                  "waiting for: [Deployment/ml-serving/chat status: 'InProgress']) at revision "
                  "main@sha1:{RUNG}"], False, id="flux-not-ready"),
    pytest.param("flux-artifact-failed.yaml", {}, State.WAIT, FLUX,
                 ["is not ready (ArtifactFailed: Source artifact not found, retrying in 30s)"],
                 False, id="flux-without-its-source"),
    pytest.param("flux-reconciling.yaml", {}, State.SHOWN, FLUX,
                 ["runs revision main@sha1:{RUNG} (being applied), which holds the rung's commit "
                  "{RUNG12}; it is reconciling (Progressing: Running health checks for revision "
                  "main@sha1:{RUNG} with a timeout of 5m0s): the rollout is under way"], True,
                 id="flux-reconciling-the-rung"),
    pytest.param("flux-helmrelease.yaml", {"CHART": "0.3.0+{RUNG12}"}, State.SHOWN, HELM,
                 ["runs revision 0.3.0+{RUNG12}, which holds the rung's commit {RUNG12}"], False,
                 id="helmrelease-at-the-rung"),
    pytest.param("flux-helmrelease.yaml", {"CHART": "0.3.0+{PREVIOUS12}"}, State.WAIT, HELM,
                 ["runs revision 0.3.0+{PREVIOUS12}, which does not hold"], False,
                 id="helmrelease-at-the-rung-before"),
    pytest.param("flux-helmrelease.yaml", {"CHART": "0.3.0"}, State.NONE, HELM,
                 ["reports revision 0.3.0, which names no commit; judged by object times"],
                 False, id="helmrelease-chart-version-only"),
]


@pytest.mark.parametrize(("name", "values", "state", "controller", "says", "rolling"), CASES)
def test_the_controller_says_where_the_rung_is(
        history: History, name: str, values: dict[str, str], state: State, controller: str,
        says: list[str], rolling: bool) -> None:
    marks = history.marks()
    filled = {k: v.format(**marks) if "{" in v else v for k, v in values.items()}
    judged = _judged(name, history, **filled)
    assert (judged.state, judged.controller, judged.rolling) == (state, controller, rolling)
    assert judged.reasons[0].startswith(controller)
    expected = [line.format(**marks) for line in says]
    assert expected[0] in judged.reasons[0], judged.reasons
    assert all(line in "\n".join(judged.reasons) for line in expected), judged.reasons
    assert all(visible(line) == line for line in judged.reasons)


def test_two_applications_deploying_the_folder_are_not_guessed_between(
        history: History) -> None:
    found = gitops.deployer(snapshot("two-applications.yaml", history), REPO)
    assert isinstance(found, Several)
    assert [d.name for d in found.deployers] == ["inference-eu", "inference-us"]
    judged = gitops.judged(found, history.rung, history.contains, REPO)
    assert judged.state is State.NONE and judged.controller == ""
    assert judged.reasons == (
        "2 objects deploy deploy/inference alike (Argo CD Application argocd/inference-eu, "
        "path deploy/inference, Argo CD Application argocd/inference-us, path "
        "deploy/inference); which one runs the rung is not guessed: judged by object times",)


def test_no_deployer_falls_back_to_object_times(history: History) -> None:
    objects = snapshot("none.yaml", history)
    assert sorted(objects) == ["Application", "GitRepository", "Kustomization"]
    assert gitops.deployer(objects, REPO) is None
    judged = gitops.judged(None, history.rung, history.contains, REPO)
    assert judged.state is State.NONE
    assert judged.reasons == (
        "no Argo CD Application, Flux Kustomization or HelmRelease in the snapshot deploys "
        "deploy/inference; judged by object times",)
    assert gitops.sync_of({}, REPO, history.rung, history.contains) == judged
    alone = Repository("deploy/inference", ())
    assert gitops.sync_of(snapshot("argo-synced.yaml", history, REVISION=history.rung,
                                   HEALTH="Healthy"), alone, history.rung, history.contains
                          ).reasons == ("the repository has no remote, so no Argo CD or Flux "
                                        "object can be matched to it; judged by object times",)


def test_the_judgement_names_the_revision_the_controller_runs(history: History) -> None:
    judged = _judged("flux-kustomization.yaml", history, APPLIED=f"main@sha1:{history.rung}")
    assert judged.revision == f"main@sha1:{history.rung}"
    wait = _judged("argo-synced.yaml", history, REVISION=history.previous, HEALTH="Healthy")
    assert wait.revision == history.previous


def test_the_rungs_commit_is_asked_of_the_controllers_commit(history: History) -> None:
    """``contains`` gets the commit, never the ref around it (``main@sha1:``, ``0.3.0+``)."""
    asked: list[str] = []

    def contains(revision: str) -> bool:
        asked.append(revision)
        return history.contains(revision)

    for name, values in (("flux-kustomization.yaml", {"APPLIED": f"main/{history.rung}"}),
                         ("flux-helmrelease.yaml", {"CHART": f"0.3.0+{history.rung[:12]}"})):
        gitops.sync_of(snapshot(name, history, **values), REPO, history.rung, contains)
    assert asked == [history.rung, history.rung[:12]]


def test_every_deploying_kind_has_a_reader() -> None:
    assert set(gitops.JUDGES) == set(gitops.KINDS) - {"GitRepository"}
