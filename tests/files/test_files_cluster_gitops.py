"""``--live`` asks kubectl for the GitOps controllers' objects by group, each kind alone,
through a stand-in ``kubectl`` on PATH that records its argv and answers each kind as a
cluster would: the objects, no such resource type (the CRD is not installed), forbidden
(the kubeconfig may not list them), or another failure."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tfpolicy import gitops
from tfpolicy.errors import TfpolicyError
from tfpolicy.files import cluster

SNAPSHOTS = ROOT / "tests" / "gitops" / "snapshots"
ARGO, FLUX = "applications.argoproj.io", "kustomizations.kustomize.toolkit.fluxcd.io"
HELM, GIT = "helmreleases.helm.toolkit.fluxcd.io", "gitrepositories.source.toolkit.fluxcd.io"
NO_TYPE = "error: the server doesn't have a resource type \"{kind}\""
FORBIDDEN = ('Error from server (Forbidden): {kind} is forbidden: User "ci" cannot list '
             'resource "{kind}" in API group "{group}" at the cluster scope')
EMPTY = "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
STAND_IN = """#!{python}
import json, sys
answers = json.load(open({answers!r}))
with open({record!r}, "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
kinds = sys.argv[sys.argv.index("get") + 1]
code, stdout, stderr = answers.get(kinds, [0, {empty!r}, ""])
sys.stdout.write(stdout)
sys.stderr.write(stderr)
sys.exit(code)
"""


def _kubectl(folder: Path, monkeypatch: pytest.MonkeyPatch,
             answers: dict[str, tuple[int, str, str]]) -> Path:
    (folder / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    script = folder / "kubectl"
    script.write_text(STAND_IN.format(python=sys.executable, answers=str(folder / "answers.json"),
                                      record=str(folder / "argv"), empty=EMPTY), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder / "argv"


def _filled(name: str, **values: str) -> str:
    text = (SNAPSHOTS / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"${key}", value)
    return text


def _read(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """What live_snapshot hands the snapshot: (shown source, document) pairs."""
    seen: list[tuple[str, Any]] = []
    real = cluster.snapshot_of

    def recording(documents: list[tuple[str, Any]]) -> Any:
        seen.extend(documents)
        return real(documents)
    monkeypatch.setattr(cluster, "snapshot_of", recording)
    cluster.live_snapshot("prod-eu", rollouts=False)
    return seen


def _by_kind(documents: list[tuple[str, Any]]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for _, doc in documents:
        for item in (doc or {}).get("items") or []:
            if gitops.in_group(item):
                gitops.check_shape(item)
                found.setdefault(item["kind"], []).append(item)
    return found


def test_live_asks_for_each_gitops_kind_by_group(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rung = "817868eec3aa4c2787dd8799aaec53bf0a4e9deb"
    argo = _filled("argo-synced.yaml", REVISION=rung, HEALTH="Healthy")
    record = _kubectl(tmp_path, monkeypatch, {ARGO: (0, argo, ""),
                                              FLUX: (1, "", NO_TYPE.format(kind="kustomizations")),
                                              HELM: (1, "", NO_TYPE.format(kind="helmreleases")),
                                              GIT: (1, "", NO_TYPE.format(kind="gitrepositories"))})
    documents = _read(monkeypatch)
    calls = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [c[3] for c in calls] == [
        "pods,replicasets,events",
        "gpus.tensor-fusion.ai,gpunodes.tensor-fusion.ai,gpupools.tensor-fusion.ai",
        ARGO, FLUX, HELM, GIT]
    assert all(c[:3] == ["--context", "prod-eu", "get"] and c[4:] == ["-A", "-o", "yaml"]
               for c in calls)
    assert {shown for shown, doc in documents if doc and doc.get("items")} == {
        f"<kubectl get {ARGO}>"}
    repo = gitops.Repository("deploy/inference", ("https://github.com/acme/gpu-fleet",))
    found = gitops.deployer(_by_kind(documents), repo)
    assert isinstance(found, gitops.Deployer) and found.controller == (
        "Argo CD Application argocd/inference")
    judged = gitops.judged(found, rung, lambda revision: revision == rung, repo)
    assert judged.state is gitops.State.SHOWN


def test_flux_read_live_finds_its_repository(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    docs = yaml.safe_load(_filled("flux-kustomization.yaml", APPLIED="main@sha1:" + "a" * 40))
    lists = {kind: yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [
        i for i in docs["items"] if i["kind"] == name]})
        for kind, name in ((FLUX, "Kustomization"), (GIT, "GitRepository"))}
    _kubectl(tmp_path, monkeypatch, {ARGO: (1, "", NO_TYPE.format(kind="applications")),
                                     FLUX: (0, lists[FLUX], ""), GIT: (0, lists[GIT], "")})
    objects = _by_kind(_read(monkeypatch))
    assert sorted(objects) == ["GitRepository", "Kustomization"]
    repo = gitops.Repository("deploy/inference", ("git@github.com:acme/gpu-fleet.git",))
    found = gitops.deployer(objects, repo)
    assert isinstance(found, gitops.Deployer)
    assert found.controller == "Flux Kustomization flux-system/inference"


@pytest.mark.parametrize("kind", [ARGO, FLUX, HELM, GIT])
def test_a_kubeconfig_that_may_not_list_them_reads_none(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        kind: str) -> None:
    plural, _, group = kind.partition(".")
    _kubectl(tmp_path, monkeypatch, {kind: (1, "", FORBIDDEN.format(kind=plural, group=group))})
    assert _by_kind(_read(monkeypatch)) == {}


def test_the_workloads_forbidden_are_still_an_error(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _kubectl(tmp_path, monkeypatch, {"pods,replicasets,events": (
        1, "", FORBIDDEN.format(kind="pods", group=""))})
    with pytest.raises(TfpolicyError, match=r"kubectl get pods,replicasets,events failed \(1\)"):
        cluster.live_snapshot(None, rollouts=False)


def test_another_failure_asking_for_them_is_an_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _kubectl(tmp_path, monkeypatch, {FLUX: (1, "", "Unable to connect to the server: EOF")})
    with pytest.raises(TfpolicyError) as raised:
        cluster.live_snapshot(None, rollouts=False)
    assert str(raised.value) == (f"--live: kubectl get {FLUX} failed (1): Unable to connect to "
                                 "the server: EOF")
