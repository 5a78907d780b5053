"""``tfpolicy verify`` with gates, against the real Prometheus of the gate tests: its JSON
carries the gate table, and its HTML page, rendered by a real headless Chromium, shows
the same values and each gate's two series as an inline SVG chart (docs/gates.md).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.browser import browser, dump_dom
from tests.gates import gate_cases as cases
from tests.promote.promote_repo import at_hour
from tfpolicy.cli import main

STOP, WAIT = 1, 75


class _Gates(HTMLParser):
    """The gate rows' attributes, and the polylines of each row's chart."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and "data-gate" in found:
            self.rows.append({**found, "lines": {}})
        elif tag == "polyline" and self.rows:
            self.rows[-1]["lines"][found["class"]] = found
        self.scripts += tag == "script"


def _verify(tmp: Path, monkeypatch: pytest.MonkeyPatch, url: str, *args: str,
            capsys: pytest.CaptureFixture[str] | None = None) -> int:
    cases.repo(tmp / "repo", monkeypatch, "slower")
    snapshot = at_hour(cases.canary("slower"), 9, tmp, "slower")
    if capsys is not None:  # what making the repository printed
        capsys.readouterr()
    return main(["verify", "--step", "2", "--cluster", snapshot, "--prometheus", url, *args,
                 "manifests"])


def test_the_json_carries_each_gate_and_the_html_shows_it(
        gates_prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    chromium = browser("verify report with gates")
    assert _verify(tmp_path, monkeypatch, gates_prometheus, "--format", "json",
                   capsys=capsys) == STOP
    data = json.loads(capsys.readouterr().out)
    gates = {g["gate"]: g for g in data["gates"]}
    assert data["verdict"] == "stop" and data["workloads"][0]["verdict"] == "ready"
    assert sorted(gates) == ["error-rate", "p99-latency", "restarts", "tokens-per-second",
                             "xid-errors"]
    latency = gates["p99-latency"]
    assert latency["verdict"] == "stop"
    assert latency["baseline"]["kind"] == "native pods, same window"
    assert latency["tensorFusion"]["pods"] == ["slower/vllm-7b9c4d5f6-k2x9p"]
    assert len(latency["baseline"]["pods"]) == 3
    assert latency["tensorFusion"]["value"] > 1.15 * latency["baseline"]["value"]
    assert latency["tensorFusion"]["samples"] >= 10 and latency["baseline"]["samples"] >= 30
    page = tmp_path / "verify.html"
    assert _verify(tmp_path / "again", monkeypatch, gates_prometheus, "--format", "html",
                   "-o", str(page)) == STOP
    dom = _Gates()
    dom.feed(dump_dom(chromium, page))
    assert dom.scripts == 0
    rows = {r["data-gate"]: r for r in dom.rows}
    assert sorted(rows) == sorted(gates)
    for name, gate in gates.items():
        row = rows[name]
        assert row["data-verdict"] == gate["verdict"]
        for side, attr in (("tensorFusion", "data-tf-value"), ("baseline", "data-baseline-value")):
            shown = row[attr]
            assert (float(shown) if shown else None) == gate[side]["value"], (name, side)
        for side, css in (("tensorFusion", "tf"), ("baseline", "base")):
            points = gate["series"][side]
            if points:
                assert int(row["lines"][css]["data-points"]) == len(points), (name, side)
                assert len(row["lines"][css]["points"].split()) == len(points)
            else:
                assert css not in row["lines"]
    assert set(rows["p99-latency"]["lines"]) == {"tf", "base"}


def test_the_same_answers_give_the_same_bytes(
        gates_prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked twice, then read from the file it saved: the same file, the same page."""
    saved, pages = tmp_path / "saved.json", [tmp_path / f"{n}.html" for n in "abc"]
    assert _verify(tmp_path, monkeypatch, gates_prometheus, "--save-metrics", str(saved),
                   "--format", "html", "-o", str(pages[0])) == STOP
    first = saved.read_bytes()
    snapshot = str(tmp_path / "slower-09.yaml")
    for source, page in ((("--prometheus", gates_prometheus, "--save-metrics", str(saved)),
                          pages[1]), (("--metrics", str(saved)), pages[2])):
        assert main(["verify", "--step", "2", "--cluster", snapshot, *source, "--format",
                     "html", "-o", str(page), "manifests"]) == STOP
    assert saved.read_bytes() == first
    assert pages[0].read_bytes() == pages[1].read_bytes() == pages[2].read_bytes()


def test_a_soak_window_shorter_than_the_minimum_waits(
        gates_prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _verify(tmp_path, monkeypatch, gates_prometheus, "--min-soak", "30m",
                   capsys=capsys) == WAIT
    out = capsys.readouterr().out
    assert "verify step 02 takeover-25: wait: the rung took effect, its gates are not " \
           "decided yet" in out
    assert ("the soak window is 20m (the rung's last TensorFusion pod ready to the snapshot), "
            "shorter than --min-soak 30m") in out
