"""The controllers' objects as the snapshot takes them: their groups, the types of the
fields read, which of them deploys the folder, and how their words are shown."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfpolicy import gitops
from tfpolicy.errors import TfpolicyError
from tfpolicy.gitops import Deployer, Repository, Several
from tfpolicy.gitops.deployers import EXACT, HOLDS, INSIDE
from tfpolicy.gitops.verdicts import LONGEST, shown
from tfpolicy.render import visible

URL = "https://github.com/acme/gpu-fleet.git"
REPO = Repository("deploy/inference", ("git@github.com:acme/gpu-fleet.git",))


def application(name: str, path: str | None, url: str = URL, recurse: bool = False,
                ) -> dict[str, Any]:
    source: dict[str, Any] = {"repoURL": url, "targetRevision": "main"}
    if path is not None:
        source["path"] = path
    if recurse:
        source["directory"] = {"recurse": True}
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": name, "namespace": "argocd"}, "spec": {"source": source}}


def kustomization(name: str, path: str | None, source: str = "gpu-fleet") -> dict[str, Any]:
    spec: dict[str, Any] = {"sourceRef": {"kind": "GitRepository", "name": source}}
    if path is not None:
        spec["path"] = path
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": "flux-system"}, "spec": spec}


def helm_release(name: str, chart: str) -> dict[str, Any]:
    ref = {"kind": "GitRepository", "name": "gpu-fleet", "namespace": "flux-system"}
    return {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": name, "namespace": "ml-serving"},
            "spec": {"chart": {"spec": {"chart": chart, "sourceRef": ref}}}}


GIT = {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
       "metadata": {"name": "gpu-fleet", "namespace": "flux-system"}, "spec": {"url": URL}}


def by_kind(*items: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for item in (GIT, *items):
        found.setdefault(item["kind"], []).append(item)
    return found


@pytest.mark.parametrize(("items", "found", "fit"), [
    # the folder itself, however its path is written
    ([application("a", "deploy/inference")], "Application argocd/a", EXACT),
    ([application("a", "./deploy/inference/")], "Application argocd/a", EXACT),
    ([kustomization("k", "./deploy/inference")], "Kustomization flux-system/k", EXACT),
    ([helm_release("h", "./deploy/inference")], "HelmRelease ml-serving/h", EXACT),
    # an overlay inside the folder
    ([application("a", "deploy/inference/overlays/prod")], "Application argocd/a", INSIDE),
    # a path above the folder that deploys what lies under it
    ([kustomization("k", None)], "Kustomization flux-system/k", HOLDS),
    ([kustomization("k", "./deploy")], "Kustomization flux-system/k", HOLDS),
    ([application("a", "deploy", recurse=True)], "Application argocd/a", HOLDS),
    # the closer fit wins: the app of apps above, the folder's own Application
    ([application("apps", "deploy", recurse=True), application("a", "deploy/inference")],
     "Application argocd/a", EXACT),
    ([kustomization("root", "./"), kustomization("k", "deploy/inference/overlays/eu")],
     "Kustomization flux-system/k", INSIDE),
    # none: a directory above without recurse, a sibling, a prefix that is no folder,
    # another repository, an Argo CD source without a path (a `ref` for values)
    ([application("a", "deploy")], None, None),
    ([application("a", "deploy/training")], None, None),
    ([application("a", "deploy/inference-old")], None, None),
    ([application("a", "deploy/inference", url="https://github.com/acme/platform")], None,
     None),
    ([application("a", None)], None, None),
    ([kustomization("k", "deploy/inference", source="platform")], None, None),
    ([helm_release("h", "./charts/other")], None, None),
])
def test_the_deployer_of_the_folder(items: list[dict[str, Any]], found: str | None,
                                    fit: int | None) -> None:
    result = gitops.deployer(by_kind(*items), REPO)
    if found is None:
        assert result is None
        return
    assert isinstance(result, Deployer)
    assert (f"{result.kind} {result.namespace}/{result.name}", result.fit) == (found, fit)


def test_two_of_the_closest_fit_are_several() -> None:
    found = gitops.deployer(by_kind(application("eu", "deploy/inference/overlays/eu"),
                                    kustomization("us", "deploy/inference/overlays/us")), REPO)
    assert isinstance(found, Several)
    assert [d.controller for d in found.deployers] == [
        "Argo CD Application argocd/eu", "Flux Kustomization flux-system/us"]


def test_the_top_of_the_repository_as_the_folder() -> None:
    top = Repository(".", (URL,))
    found = gitops.deployer(by_kind(kustomization("k", "./")), top)
    assert isinstance(found, Deployer) and found.fit == EXACT
    inside = gitops.deployer(by_kind(application("a", "deploy/inference")), top)
    assert isinstance(inside, Deployer) and inside.fit == INSIDE


def test_a_multi_source_application_names_its_source() -> None:
    app = application("a", None)
    app["spec"] = {"sources": [{"repoURL": "https://charts.example.org", "chart": "vllm"},
                               {"repoURL": URL, "ref": "values"},
                               {"repoURL": URL, "path": "deploy/inference"}],
                   "source": {"repoURL": URL, "path": "deploy/other"}}  # ignored by Argo CD
    found = gitops.deployer(by_kind(app), REPO)
    assert isinstance(found, Deployer) and found.source == 2


@pytest.mark.parametrize("item", [
    {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"},
    {"apiVersion": "app.k8s.io/v1beta1", "kind": "Application"},
    {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout"},
    {"apiVersion": "v1", "kind": "GitRepository"},
    {"kind": "Application"},
    {"apiVersion": "argoproj.io/v1alpha1", "kind": ["Application"]},
])
def test_namesakes_from_other_groups_are_not_read(item: dict[str, Any]) -> None:
    assert not gitops.in_group(item)
    assert gitops.deployer({str(item["kind"]): [item]}, REPO) is None


@pytest.mark.parametrize(("item", "change", "message"), [
    (application("a", "deploy/inference"), {"status": {"sync": {"revisions": {"a": 1}}}},
     "Application argocd/a: status.sync.revisions: expected a list of strings, found a mapping"),
    (application("a", "deploy/inference"), {"status": {"sync": {"revisions": ["x", 3]}}},
     "Application argocd/a: status.sync.revisions: expected a list of strings, found a list "
     "holding a number"),
    (application("a", "deploy/inference"), {"status": {"operationState": ["Failed"]}},
     "Application argocd/a: status.operationState: expected a mapping, found a list"),
    (application("a", "deploy/inference"), {"spec": {"sources": ["https://x"]}},
     "Application argocd/a: spec.sources: expected a list of mappings, found a list holding "
     "a string"),
    (application("a", "deploy/inference"), {"spec": {"source": {"path": 7}}},
     "Application argocd/a: spec.source.path: expected a string, found a number"),
    (application("a", "deploy/inference"),
     {"status": {"resources": [{"health": {"status": "Degraded", "message": {}}}]}},
     "Application argocd/a: status.resources.0.health.message: expected a scalar, found a "
     "mapping"),
    (kustomization("k", "x"), {"status": {"lastAppliedRevision": ["main@sha1:abc"]}},
     "Kustomization flux-system/k: status.lastAppliedRevision: expected a string, found a list"),
    (kustomization("k", "x"), {"spec": {"sourceRef": "gpu-fleet"}},
     "Kustomization flux-system/k: spec.sourceRef: expected a mapping, found a string"),
    (kustomization("k", "x"), {"status": {"conditions": [{"type": "Ready", "status": []}]}},
     "Kustomization flux-system/k: status.conditions.0.status: expected a scalar, found a list"),
    (helm_release("h", "x"), {"status": {"history": {"version": 1}}},
     "HelmRelease ml-serving/h: status.history: expected a list of mappings, found a mapping"),
    (helm_release("h", "x"), {"spec": {"chart": {"spec": {"chart": True}}}},
     "HelmRelease ml-serving/h: spec.chart.spec.chart: expected a string, found a boolean"),
    (GIT, {"spec": {"url": ["https://x"]}},
     "GitRepository flux-system/gpu-fleet: spec.url: expected a string, found a list"),
    (GIT, {"metadata": {"name": 7}}, "GitRepository: metadata.name: expected a string"),
])
def test_a_wrongly_typed_field_is_one_error(item: dict[str, Any], change: dict[str, Any],
                                            message: str) -> None:
    changed = copy.deepcopy(item)
    for part, value in change.items():
        changed[part] = {**changed.get(part, {}), **value}
    with pytest.raises(TfpolicyError) as raised:
        gitops.check_shape(changed)
    assert str(raised.value).startswith(message)
    gitops.check_shape(item)  # the object as it was passes


def test_missing_and_null_fields_are_fine() -> None:
    for item in (application("a", None), kustomization("k", None), helm_release("h", "x"), GIT,
                 {**GIT, "status": None}, {**application("a", "x"), "status": {"sync": None}}):
        gitops.check_shape(item)


@given(st.text(max_size=LONGEST))
def test_a_controllers_words_are_shown_as_names_are(text: str) -> None:
    assert shown(text) == visible(text)


def test_a_long_message_is_cut() -> None:
    assert shown("x" * (LONGEST + 50)) == "x" * LONGEST + "…"


CANDIDATES = [application("apps", "deploy", recurse=True), application("a", "deploy/inference"),
              application("b", "./deploy/inference/"), kustomization("k", "./deploy"),
              kustomization("o", "deploy/inference/overlays/eu"),
              helm_release("h", "deploy/inference"), application("t", "deploy/training")]


@given(st.permutations(CANDIDATES), st.integers(min_value=0, max_value=len(CANDIDATES)))
def test_the_deployer_does_not_depend_on_the_objects_order(items: list[dict[str, Any]],
                                                           keep: int) -> None:
    chosen = items[:keep]
    in_order = [i for i in CANDIDATES if i in chosen]
    assert gitops.deployer(by_kind(*chosen), REPO) == gitops.deployer(by_kind(*in_order), REPO)


@given(message=st.text(), phase=st.sampled_from(["Failed", "Error", "Running", "Succeeded"]),
       health=st.sampled_from(["Healthy", "Degraded", "Progressing", None]))
def test_every_line_shows_as_it_is(message: str, phase: str, health: str | None) -> None:
    """No line holds a character a terminal acts on: each is as render.visible shows it."""
    app = application("a\x1b[2Jb", "deploy/inference")
    app["status"] = {"operationState": {"phase": phase, "message": message,
                                        "operation": {"sync": {"revision": "a" * 40}}},
                     "health": {"status": health, "message": message},
                     "conditions": [{"type": "SyncError", "message": message}],
                     "sync": {"status": "Synced", "revision": "b" * 40}}
    judged = gitops.sync_of(by_kind(app), REPO, "c" * 40, lambda _: False)
    assert judged.reasons and all(visible(line) == line for line in judged.reasons)
    assert all(len(line) < 3 * LONGEST for line in judged.reasons)
