"""``tfpolicy promote`` up the whole ladder in a real git repository, and back on a stop.

The Deployment has two replicas: takeover-1, -25 and -50 all cap it at one
TensorFusion pod (the same manifests), takeover removes the cap. Each
snapshot is taken after the commit before it (hours apart); promote's own
commit is made at half past the snapshot's hour.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.promote.promote_repo import (
    VERIFY,
    Repo,
    at_hour,
    before_takeover,
    capped,
    clean,
    crashing,
    young,
)
from tfpolicy.cli import main

ADVANCED, STOP, REFUSED, DONE, WAIT = 0, 1, 4, 5, 75


def _snapshot(repo: Repo, items: list, hour: int, name: str) -> str:
    return at_hour(items, hour, repo.path.parent, name)


def test_each_rung_in_turn_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    manifest = repo.path / "manifests" / "serving.yaml"
    capped_manifest = manifest.read_text(encoding="utf-8")
    for hour, rung in ((9, "takeover-25"), (10, "takeover-50")):
        assert repo.promote("--cluster", _snapshot(repo, capped(), hour, "capped"), "--commit",
                            hour=hour) == ADVANCED
        assert f"policies: [{rung}]  # rung" in repo.rung  # the comment and flow style stay
        assert manifest.read_text(encoding="utf-8") == capped_manifest  # the same cap: 1
        assert repo.status() == ""
    out = capsys.readouterr().out
    assert "promote: takeover-25 (step 02): advance" in out
    assert "verify step 02 takeover-25: ready" in out
    assert repo.log()[:2] == ["GPU migration: takeover-25 to takeover-50, verify said ready",
                              "GPU migration: takeover-1 to takeover-25, verify said ready"]

    assert repo.promote("--cluster", _snapshot(repo, capped(), 11, "capped"), "--commit",
                        hour=11) == ADVANCED
    assert "policies: [takeover]  # rung" in repo.rung
    text = manifest.read_text(encoding="utf-8")
    assert "enabled-replicas" not in text and 'tensor-fusion.ai/enabled: "true"' in text
    body = repo.git("log", "-1", "--format=%B")
    assert body.startswith("GPU migration: takeover-50 to takeover, verify said ready\n")
    assert "verify step 03 takeover-50: ready" in body
    assert "Deployment/ml-serving/vllm: ready (TensorFusion pods 1/1, native 1/1)" in body
    assert "The plan for step 04 takeover-100: fits." in body
    assert "Workloads rolled by it: Deployment/ml-serving/vllm" in body
    assert repo.git("show", "--name-only", "--format=").split() == [
        ".tfpolicy.yaml", "manifests/serving.yaml"]  # one commit: the rung and its rewrite
    assert main(["check", "manifests"]) == 0
    capsys.readouterr()

    # The sync has not happened: the cluster still runs takeover-50. A wait, not a rollback.
    head = repo.head()
    assert repo.promote("--cluster", _snapshot(repo, capped(), 12, "capped"), "--commit",
                        hour=12) == WAIT
    out = capsys.readouterr().out
    assert "verify step 04 takeover-100: not taken yet" in out
    assert "the cluster still shows the rung before (verify step 03 takeover-50: ready)" in out
    assert repo.head() == head and repo.status() == "" and "[takeover]" in repo.rung

    assert repo.promote("--cluster", _snapshot(repo, clean(), 12, "clean"), "--commit",
                        hour=12) == DONE
    out = capsys.readouterr().out
    assert "the migration is done" in out
    assert repo.head() == head and repo.status() == ""


def test_a_second_run_on_the_same_snapshot_waits(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # takeover-50 → takeover removes the cap: a rung that changes the pods (one that
    # does not is shown at once: test_promote_same_pods.py).
    repo = Repo(tmp_path / "repo", monkeypatch, rung="takeover-50")
    snapshot = _snapshot(repo, capped(), 9, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == ADVANCED
    head, config = repo.head(), repo.rung
    capsys.readouterr()
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == WAIT
    out = capsys.readouterr().out
    assert ("the snapshot (2026-11-30T09:20:00Z) is older than the commit that set "
            "takeover (2026-11-30T09:30:00Z)") in out
    assert (repo.head(), repo.rung, repo.status()) == (head, config, "")


def test_pods_not_ready_long_enough_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    head = repo.head()
    snapshot = _snapshot(repo, young(capped()), 9, "young")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == WAIT
    out = capsys.readouterr().out
    assert "pod ml-serving/vllm-7b9c4d5f6-k2x9p: ready for 5m, less than 10m" in out
    assert "pod ml-training/trainer-0: ready for 5m, less than 10m" in out
    assert repo.head() == head and repo.status() == ""
    assert repo.promote("--cluster", snapshot, "--commit", "--min-soak", "5m",
                        hour=9) == ADVANCED


def test_a_stop_writes_the_rung_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch, rung="takeover")
    assert "enabled-replicas" not in (repo.path / "manifests" / "serving.yaml").read_text()
    summary = tmp_path / "pr.md"
    assert repo.promote("--cluster", _snapshot(repo, crashing(clean()), 9, "crashing"),
                        "--commit", "--summary", str(summary), hour=9) == STOP
    out = capsys.readouterr().out
    assert "verify step 04 takeover-100: stop; roll back to takeover-50" in out
    assert "policies: [takeover-50]  # rung" in repo.rung
    assert repo.log()[0] == "GPU migration: roll back takeover to takeover-50, verify said stop"
    body = repo.git("log", "-1", "--format=%B")
    assert ("  stop: vllm-7b9c4d5f6-k2x9p: container vllm: CrashLoopBackOff (6 restarts), "
            "last exit 1 (Error)") in body
    assert 'enabled-replicas: "1"' in (repo.path / "manifests" / "serving.yaml").read_text()
    assert repo.status() == "" and main(["check", "manifests"]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Roll back: `takeover` → `takeover-50`\n")
    assert "| `Deployment/ml-serving/vllm` | stop |" in text
    assert "CrashLoopBackOff" in text
    stat = repo.git("diff", "--stat", "--no-color", "HEAD~1", "HEAD")  # the commit's own
    assert " manifests/serving.yaml |" in stat and f"```\n{stat}```" in text


def test_a_stop_at_the_first_rung_restores_the_manifests(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    assert repo.promote("--cluster", _snapshot(repo, crashing(capped()), 9, "crashing"),
                        "--commit", hour=9) == STOP
    assert "policies: [rollback]  # rung" in repo.rung
    assert (repo.path / "manifests" / "serving.yaml").read_bytes() == (
        VERIFY / "manifests.yaml").read_bytes()


def test_no_rollback_changes_nothing_on_a_stop(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch, rung="takeover-50")
    head, config = repo.head(), repo.rung
    assert repo.promote("--cluster", _snapshot(repo, crashing(capped()), 9, "crashing"),
                        "--commit", "--no-rollback", hour=9) == STOP
    assert (repo.head(), repo.rung, repo.status()) == (head, config, "")


def test_the_first_rung_not_synced_yet_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    head = repo.head()
    assert repo.promote("--cluster", _snapshot(repo, before_takeover(), 9, "before"),
                        "--commit", hour=9) == WAIT
    out = capsys.readouterr().out
    assert "the cluster still shows the rung before (verify step 01 rollback: ready)" in out
    assert repo.head() == head and repo.status() == "" and "[takeover-1]" in repo.rung
