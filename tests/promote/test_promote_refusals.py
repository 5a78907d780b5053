"""What ``tfpolicy promote`` refuses (exit 4, nothing changed), its usage errors (exit 2),
and ``--patch``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.promote.promote_repo import Repo, at_hour, capped
from tfpolicy.cli import main

ADVANCED, REFUSED, INVALID = 0, 4, 2


def _unchanged(repo: Repo, head: str, config: str) -> bool:
    return repo.head() == head and repo.rung == config


def test_a_dirty_working_tree_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    head, config = repo.head(), repo.rung
    (repo.path / "notes.txt").write_text("not committed\n", encoding="utf-8")
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == REFUSED
    assert ("promote: refused: the working tree has changes not committed (notes.txt)"
            in capsys.readouterr().err)
    assert _unchanged(repo, head, config)


def test_a_hand_edited_manifest_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    manifest = repo.path / "manifests" / "serving.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('tensor-fusion.ai/enabled-replicas: "1"',
                                     'tensor-fusion.ai/enabled-replicas: "2"', 1),
                        encoding="utf-8")
    repo.commit_all("scale the canary by hand", hour=8)
    head, config = repo.head(), repo.rung
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == REFUSED
    err = capsys.readouterr().err
    assert "`tfpolicy check` would change manifests/serving.yaml" in err
    assert _unchanged(repo, head, config) and repo.status() == ""


@pytest.mark.parametrize(("policies", "said"), [
    ("[rollback]", "names no rung of the takeover ladder"),
    ("[takeover-1, takeover-25]", "names several rungs (takeover-1, takeover-25)"),
    ("[takeover-1, rightsize-example]", "policies that climb a ladder"),
])
def test_a_configuration_off_the_ladder_is_refused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   policies: str, said: str) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    (repo.path / ".tfpolicy.yaml").write_text(f"policies: {policies}\n", encoding="utf-8")
    repo.commit_all("another configuration", hour=8)
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == REFUSED
    assert said in capsys.readouterr().err


def test_a_next_rung_that_does_not_fit_is_refused(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch, rung="takeover-50")
    small = tmp_path / "two-gpus.yaml"
    small.write_text((Path(__file__).parent / "inventory.yaml").read_text(encoding="utf-8")
                     .replace("gpusPerNode: 4", "gpusPerNode: 2"), encoding="utf-8")
    head, config = repo.head(), repo.rung
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", "--inventory", str(small),
                        hour=9) == REFUSED
    assert "the plan's step 04 takeover-100 does not fit" in capsys.readouterr().err
    assert _unchanged(repo, head, config) and repo.status() == ""


@pytest.mark.parametrize(("args", "said"), [
    (["--cluster", "SNAP"], "--commit or --patch FILE"),
    (["--cluster", "SNAP", "--commit", "--patch", "p.diff"], "--commit or --patch FILE"),
    (["--commit"], "either as --cluster SNAPSHOT… or as --live"),
    (["--cluster", "SNAP", "--commit", "--context", "prod"], "--context goes with --live"),
    (["--live", "--commit", "--context", "--kubeconfig=/etc/x"], "not a kubeconfig context"),
    (["--cluster", "SNAP", "--commit", "--min-soak", "ten minutes"], "is not a duration"),
])
def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str], args: list[str],
                             said: str) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch)
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    given = [snapshot if a == "SNAP" else a for a in args]
    assert repo.promote(*given, hour=9) == INVALID
    assert said in capsys.readouterr().err
    assert repo.status() == ""


def test_patch_leaves_the_change_uncommitted_and_writes_it(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    repo = Repo(tmp_path / "repo", monkeypatch, rung="takeover-50")
    head = repo.head()
    patch, summary = tmp_path / "rung.patch", tmp_path / "pr.md"
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--patch", str(patch), "--summary",
                        str(summary), hour=9) == ADVANCED
    assert repo.head() == head
    assert repo.status().split() == ["M", ".tfpolicy.yaml", "M", "manifests/serving.yaml"]
    text = patch.read_text(encoding="utf-8")
    assert text == repo.git("diff")
    assert "-policies: [takeover-50]  # rung\n+policies: [takeover]  # rung\n" in text
    subprocess.run(["git", "apply", "--check", "-R", str(patch)], cwd=repo.path, check=True)
    body = summary.read_text(encoding="utf-8")
    assert body.startswith("## Promote: `takeover-50` → `takeover`\n")
    assert "- The plan for step 04 takeover-100: fits." in body
    assert " 2 files changed" in body
    assert "| `StatefulSet/ml-training/trainer` | ready | 1/1 | 0/0 | — |" in body
    # The tree is now dirty: a second run refuses until the change is committed.
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == 4
    assert main(["check", "manifests"]) == 0


def test_one_object_defined_twice_is_located_by_line(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The same workload in two files: exit 2, at the second's line, naming the first's
    file and line, as plan and verify say it; nothing changed."""
    repo = Repo(tmp_path / "repo", monkeypatch)
    manifests = repo.path / "manifests"
    (manifests / "again.yaml").write_text((manifests / "serving.yaml").read_text("utf-8"),
                                          encoding="utf-8")
    repo.commit_all("the same app twice", hour=8)
    head, config = repo.head(), repo.rung
    snapshot = at_hour(capped(), 9, tmp_path, "capped")
    assert repo.promote("--cluster", snapshot, "--commit", hour=9) == INVALID
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(errors) == 1, errors
    # read in name order: again.yaml first, so serving.yaml holds the second definition
    assert errors[0].startswith("manifests/serving.yaml:6:9: error: "), errors[0]
    assert "is defined twice, at manifests/again.yaml:6:9 and here" in errors[0]
    assert _unchanged(repo, head, config)
