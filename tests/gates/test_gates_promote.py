"""``tfpolicy promote`` gated by the application's own metrics, against a real Prometheus
backfilled with promtool, then the same cases through the ``--metrics`` file each run
saved (docs/gates.md).

A Deployment of four vLLM replicas at takeover-25: one TensorFusion pod, three native.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.gates import gate_cases as cases
from tests.promote.promote_repo import at_hour
from tests.recommend.prometheus_server import free_port
from tfpolicy.cli import main

ADVANCED, STOP, INVALID, DONE, WAIT = 0, 1, 2, 5, 75
Build = Callable[[str], list[dict[str, Any]]]
CASES: dict[str, tuple[Build, str, int, str, tuple[str, ...]]] = {
    # name: (snapshot, rung, exit, rung after, what the output says)
    "within": (cases.canary, "takeover-25", ADVANCED, "takeover-50",
               ("gates: 5 judged (0 stop, 0 wait, 5 pass)",
                "pass: p99-latency on Deployment/within/vllm",
                "(native pods, same window), bound <= 1.15 x baseline, pods 1/3")),
    "slower": (cases.canary, "takeover-25", STOP, "takeover-1",
               ("verify step 02 takeover-25: ready, but a gate failed; roll back to takeover-1",
                "gate p99-latency on Deployment/slower/vllm: fails: TensorFusion mean",
                "gate tokens-per-second on Deployment/slower/vllm: fails:")),
    "sparse": (cases.canary, "takeover-25", WAIT, "takeover-25",
               ("ready, its gates not decided yet",
                "too few samples: 10 needed on each side, found TensorFusion pods")),
    "xid": (lambda ns: cases.on_xid_card(cases.canary(ns)), "takeover-25", STOP, "takeover-1",
            ("gate xid-errors on Deployment/xid/vllm: fails: XID errors on "
             "gpu-5e1d0c4b-9a2f-4b7e-8c6d-3f2a1b0c9d8e (XID 79, pod vllm-7b9c4d5f6-k2x9p)",)),
    "restarts": (lambda ns: cases.restarted(cases.canary(ns)), "takeover-25", STOP,
                 "takeover-1", ("gate restarts on Deployment/restarts/vllm: fails: "
                                "restarts/vllm-7b9c4d5f6-k2x9p: 2 restarts, last OOMKilled",)),
    "last": (cases.last, "takeover", DONE, "takeover",
             ("baseline", "(time-shifted: the workload's pods 2026-11-30T07:40:00Z to "
              "2026-11-30T08:00:00Z, before the rung)", "pass: tokens-per-second on "
              "Deployment/last/vllm")),
}


def _run(tmp: Path, monkeypatch: pytest.MonkeyPatch, name: str, *source: str,
         latency: str = cases.LATENCY, capsys: pytest.CaptureFixture[str] | None = None
         ) -> tuple[int, cases.Repo]:
    """Promote in a new repository of case ``name`` (``capsys``: what the repository's
    making printed is dropped, so only promote's own output is left)."""
    build, rung, _, _, _ = CASES[name]
    repo = cases.repo(tmp / "repo", monkeypatch, name, rung, latency)
    snapshot = at_hour(build(name), 9, tmp, name)
    if capsys is not None:
        capsys.readouterr()
    return repo.promote("--cluster", snapshot, "--commit", "--summary", str(tmp / "pr.md"),
                        *source, hour=9), repo


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_gate_decides_the_rung(name: str, gates_prometheus: str, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, rung, code, after, says = CASES[name]
    saved = tmp_path / "gates.json"
    done, repo = _run(tmp_path / "live", monkeypatch, name, "--prometheus", gates_prometheus,
                      "--save-metrics", str(saved))
    live = capsys.readouterr()
    assert done == code, live.out + live.err
    assert f"policies: [{after}]  # rung" in repo.rung
    for text in says:
        assert text in live.out, live.out
    assert repo.status() == ""
    if after != rung:  # the summary and the commit carry the gate table
        summary = (tmp_path / "live" / "pr.md").read_text(encoding="utf-8")
        assert "| gate | workload | TensorFusion | baseline | which baseline |" in summary
        assert "gates: 5 judged" in repo.git("log", "-1", "--format=%B")
    offline, again = _run(tmp_path / "file", monkeypatch, name, "--metrics", str(saved))
    replay = capsys.readouterr()
    assert offline == code, replay.out + replay.err
    assert again.rung == repo.rung
    assert _gate_lines(replay.out) == _gate_lines(live.out)


def _gate_lines(out: str) -> list[str]:
    """Verify's gate table in promote's output: the tally, then its indented lines."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("gates: "))
    table = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        table.append(line)
    return table


def test_a_rung_gated_on_an_unreachable_prometheus_does_not_advance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    done, repo = _run(tmp_path, monkeypatch, "within", "--prometheus", down, capsys=capsys)
    err = capsys.readouterr().err
    assert done == INVALID
    assert err.strip().splitlines() == [f"tfpolicy: error: --prometheus: cannot reach {down}: "
                                        "[Errno 111] Connection refused"], err
    assert "policies: [takeover-25]  # rung" in repo.rung
    assert repo.log()[0] == "GPU migration: takeover-25, gated" and repo.status() == ""


def test_a_metrics_file_without_the_answer_does_not_advance(
        gates_prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Saved by verify against a snapshot taken an hour later: its windows are not these."""
    saved = tmp_path / "later.json"
    cases.repo(tmp_path / "later", monkeypatch, "within")
    later = at_hour(cases.canary("within"), 10, tmp_path, "later")
    assert main(["verify", "--step", "2", "--cluster", later, "--prometheus", gates_prometheus,
                 "--save-metrics", str(saved), "manifests"]) == WAIT  # no series at 10:xx
    capsys.readouterr()
    done, repo = _run(tmp_path / "here", monkeypatch, "within", "--metrics", str(saved),
                      capsys=capsys)
    err = capsys.readouterr().err
    assert done == INVALID
    assert err.startswith(f"{saved}: error: holds no answer for the gate query "), err
    assert "policies: [takeover-25]  # rung" in repo.rung and repo.status() == ""


@pytest.mark.parametrize("offline", [False, True])
def test_a_misspelled_metric_is_an_error_at_the_gate(
        offline: bool, gates_prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    source = ("--prometheus", gates_prometheus)
    if offline:
        saved = tmp_path / "saved.json"
        _run(tmp_path / "saving", monkeypatch, "within", *source, "--save-metrics", str(saved))
        capsys.readouterr()
        source = ("--metrics", str(saved))
    done, repo = _run(tmp_path / "repo", monkeypatch, "within", *source,
                      latency="vllm:e2e_request_latency_second_bucket", capsys=capsys)
    err = capsys.readouterr().err
    assert done == INVALID
    config = repo.path / ".tfpolicy.yaml"
    assert err == (f"{config}:5:12: error: gate p99-latency: the query reads "
                   "vllm:e2e_request_latency_second_bucket, a metric Prometheus holds no series "
                   "of (did you mean vllm:e2e_request_latency_seconds_bucket?)\n")
    assert "policies: [takeover-25]  # rung" in repo.rung and repo.status() == ""
