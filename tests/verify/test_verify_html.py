"""The HTML verify report rendered by a real headless Chromium: its DOM says what the JSON says.

Skipped only when no browser is installed outside CI; with ``CI=true`` a
missing browser fails the test (`.ci/run` installs Debian's `chromium`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.browser import browser, dump_dom, screenshot
from tests.conftest import ROOT

HERE = ROOT / "tests" / "verify"
_VOID = ("meta", "br", "rect")


class _Dom(HTMLParser):
    """Text of every element with an id; workload sections with their counts, pods, problems;
    the GPU rows' attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self.workloads: list[dict[str, Any]] = []
        self.gpus: list[dict[str, str | None]] = []
        self._open: list[str] = []
        self._count = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and "data-workload" in found:
            self.workloads.append({**found, "counts": {}, "pods": [], "problems": []})
        elif "data-pod" in found:
            self.workloads[-1]["pods"].append(found)
        elif "data-gpu" in found:
            self.gpus.append(found)
        elif tag == "li" and self.workloads and "data-verdict" in found:
            self.workloads[-1]["problems"].append(found["data-verdict"])
        self._count = str(found.get("data-k") or "")
        if tag not in _VOID:
            self._open.append(str(found.get("id") or ""))
            if found.get("id"):
                self.text[str(found["id"])] = ""

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag not in _VOID:
            self._open.pop()
        self._count = ""

    def handle_data(self, data: str) -> None:
        if self._count:
            self.workloads[-1]["counts"][self._count] = data
        for ident in self._open:
            if ident:
                self.text[ident] += data


def _verify(tmp_path: Path, snapshot: str, *extra: str) -> subprocess.CompletedProcess[str]:
    manifests = {"multi": "multi.yaml", "partitioned": "partitioned.yaml"}.get(
        snapshot.split("-")[0], "manifests.yaml")
    return subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover", *extra,
         str(HERE / manifests), "--cluster", str(HERE / "snapshots" / snapshot)],
        capture_output=True, text=True, check=False, cwd=tmp_path)


def _render(path: str, page: Path) -> _Dom:
    dom = _Dom()
    dom.feed(dump_dom(path, page))
    return dom


@pytest.mark.parametrize("snapshot", ["pending.yaml", "gpu-mismatch.yaml", "partial.yaml",
                                      "clean.yaml", "multi-mixed.yaml", "partitioned-leak.yaml",
                                      "no-operator.yaml"])
def test_chromium_renders_the_verdicts_of_the_json(tmp_path: Path, snapshot: str) -> None:
    path = browser("verify report")
    as_json = _verify(tmp_path, snapshot, "--format", "json")
    report = json.loads(as_json.stdout)
    done = _verify(tmp_path, snapshot, "--format", "html", "-o", "verify.html")
    assert done.returncode == as_json.returncode and done.stdout == ""
    assert "verify.html" in done.stderr
    page = tmp_path / "verify.html"
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "<script" not in text
    dom = _render(path, page)
    assert dom.text["verdict"] == report["verdict"]
    assert dom.text.get("rollback") == report["rollback"]
    off = [g for g in report["gpus"] if g["verdict"] != "ready"]
    assert dom.text["gpus-off"] == str(len(off))
    assert dom.text["gpus-checked"] == str(len(report["gpus"]))
    for verdict in ("ready", "wait", "stop"):
        assert dom.text[f"workloads-{verdict}"] == str(
            sum(w["verdict"] == verdict for w in report["workloads"]))
        assert dom.text[f"gpus-{verdict}"] == str(
            sum(g["verdict"] == verdict for g in report["gpus"]))
        if report["cluster"]:
            assert dom.text[f"cluster-{verdict}"] == str(
                sum(p["verdict"] == verdict for p in report["cluster"]))
    # The step's verdict is among the counts the header shows (never "0 stop" under a stop).
    assert int(dom.text[f"workloads-{report['verdict']}"]) + int(
        dom.text[f"gpus-{report['verdict']}"]) + int(
        dom.text.get(f"cluster-{report['verdict']}", "0")) > 0
    snapshot = report["snapshot"]
    assert dom.text["snapshot-source"] == snapshot["source"]
    assert dom.text["snapshot-latest"] == snapshot["latest"]
    assert dom.text["snapshot-nodes"] == str(snapshot["gpuNodes"])
    # Problem workloads first: stop, then wait, then ready, the JSON's order within each.
    rank = {"stop": 0, "wait": 1, "ready": 2}
    ordered = sorted(report["workloads"], key=lambda w: rank[w["verdict"]])
    assert len(dom.workloads) == len(report["workloads"])
    for seen, want in zip(dom.workloads, ordered, strict=True):
        _same_workload(seen, want)
    assert [(g["data-gpu"], g["data-verdict"], g["data-available-tflops"],
             g["data-expected-vram"], g["data-partitions"], "off" in str(g.get("class")))
            for g in dom.gpus] == [
        (g["name"], g["verdict"], f"{g['available']['tflops']:g}", str(g["expected"]["vramMiB"]),
         str(len(g["partitions"])), g["verdict"] != "ready") for g in report["gpus"]]
    _screenshot(path, page, tmp_path)


def _same_workload(seen: dict[str, Any], want: dict[str, Any]) -> None:
    assert (seen["data-workload"], seen["data-verdict"]) == (want["workload"], want["verdict"])
    assert seen["counts"] == {
        "tf-seen": str(want["tensorFusionPods"]["seen"]),
        "tf-expected": str(want["tensorFusionPods"]["expected"]),
        "native-seen": str(want["nativePods"]["seen"]),
        "native-expected": str(want["nativePods"]["expected"])}
    assert [(p["data-pod"], p["data-kind"], p["data-status"]) for p in seen["pods"]] == [
        (p["name"], "tensor-fusion" if p["tensorFusion"] else "native", p["status"])
        for p in want["pods"]]
    pods = {p["name"] for p in want["pods"]}
    shown = [p["verdict"] for p in want["problems"] if p["subject"] not in pods]
    assert seen["problems"] == shown
    troubled = {p["subject"]: p["verdict"] for p in want["problems"] if p["subject"] in pods}
    assert {p["data-pod"]: p.get("class") for p in seen["pods"]} == {
        name: troubled.get(name) for name in pods}


def _screenshot(path: str, page: Path, tmp_path: Path) -> None:
    screenshot(path, page, tmp_path / "shot" / "verify.png", 1600)


def test_html_escapes_what_the_cluster_says(tmp_path: Path) -> None:
    """A pod name or message from the cluster never becomes markup."""
    snapshot = (HERE / "snapshots" / "pending.yaml").read_text(encoding="utf-8")
    hostile = snapshot.replace("no gpus available", "<b>no</b> gpus & available")
    (tmp_path / "hostile.yaml").write_text(hostile, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover", "--format", "html",
         str(HERE / "manifests.yaml"), "--cluster", str(tmp_path / "hostile.yaml")],
        capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("<!DOCTYPE html>") and done.stdout.endswith("</html>\n")
    assert "&lt;b&gt;no&lt;/b&gt; gpus &amp; available" in done.stdout
    assert "<b>no</b>" not in done.stdout
