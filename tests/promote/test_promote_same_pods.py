"""A rung that changes no pod template (takeover-1 → takeover-25 → takeover-50 on a
Deployment whose cap stays 1) is shown by the cluster as soon as the rung before is: one
snapshot taken before every commit, whose objects never change, climbs those rungs, and
waits only at the rung that changes the pods (takeover, the cap removed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.promote.promote_repo import Repo, at_hour, capped, young

ADVANCED, WAIT = 0, 75


def test_unchanged_objects_advance_through_rungs_that_change_no_pod(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    manifest = (repo.path / "manifests" / "serving.yaml").read_text(encoding="utf-8")
    snapshot = at_hour(capped(), 9, tmp_path, "capped")  # 09:20, every commit at 09:30+
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    for hour, rung in ((10, "takeover-50"), (11, "takeover")):
        assert repo.promote("--cluster", snapshot, "--commit", hour=hour) == ADVANCED
        assert f"policies: [{rung}]  # rung" in repo.rung
    out = capsys.readouterr().out
    assert ("takeover-25 changes no pod template of takeover-1: the snapshot need not be "
            "newer than its commit") in out
    assert "takeover-50 changes no pod template of takeover-25" in out
    assert "older than the commit" not in out
    assert repo.log()[:3] == ["GPU migration: takeover-50 to takeover, verify said ready",
                              "GPU migration: takeover-25 to takeover-50, verify said ready",
                              "GPU migration: takeover-1 to takeover-25, verify said ready"]
    # takeover changes the pods (the cap goes): the same old snapshot cannot show it.
    assert (repo.path / "manifests" / "serving.yaml").read_text(encoding="utf-8") != manifest
    head = repo.head()
    assert repo.promote("--cluster", snapshot, "--commit", hour=12) == WAIT
    assert "is older than the commit that set takeover" in capsys.readouterr().out
    assert repo.head() == head


def test_a_rung_that_changes_no_pod_still_soaks(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    assert repo.promote("--cluster", at_hour(capped(), 9, tmp_path, "capped"), "--commit",
                        hour=9) == ADVANCED
    head = repo.head()
    assert repo.promote("--cluster", at_hour(young(capped()), 9, tmp_path, "young"),
                        "--commit", hour=10) == WAIT
    out = capsys.readouterr().out
    assert "not every TensorFusion pod has been ready for 10m (--min-soak)" in out
    assert repo.head() == head
