"""The HTML plan rendered by a real headless Chromium: its DOM says what the JSON says.

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
import yaml

from tests.browser import FLAGS, browser, dump_dom, screenshot
from tests.conftest import ROOT
from tfpolicy import __version__

EXAMPLES = ROOT / "examples"
WARNED = ROOT / "tests" / "plan_html"  # HAMi shares, an Argo Workflow, roomy VRAM limits
PROBE = ("<script>document.body.setAttribute('data-scroll', "
         "document.documentElement.scrollWidth - document.documentElement.clientWidth)"
         "</script></body>")


class _Dom(HTMLParser):
    """Text and attributes of every element with an id, the step sections, the warnings,
    the per-workload tables' rows, the saving figure's bars and the maps' node labels."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, dict[str, str | None]] = {}
        self.text: dict[str, str] = {}
        self.steps: list[dict[str, str | None]] = []
        self.warnings: list[dict[str, str | None]] = []
        self.oversubscribed: list[dict[str, str | None]] = []
        self.moved: list[dict[str, str | None]] = []
        self.whole: list[dict[str, str | None]] = []
        self.tables: dict[str, list[dict[str, str | None]]] = {}
        self.bars: list[dict[str, str | None]] = []
        self.labels: list[str] = []
        self.cells: dict[str, list[str]] = {}  # map id → its rectangles' classes
        self._figure = ""
        self.paragraphs: list[str] = []
        self.body: dict[str, str | None] = {}
        self._open: list[str] = []
        self._table = ""
        self._tag = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self._tag = f"{tag}.{found.get('class') or ''}"
        if tag == "body":
            self.body = found
        if tag == "li" and found.get("class") == "warning":
            self.warnings.append(found)
        if tag == "li" and found.get("class") == "warning moved-whole":
            self.whole.append(found)
        if tag == "p" and found.get("class") == "moved":
            self.moved.append(found)
        if tag == "li" and found.get("class") == "oversubscribed":
            self.oversubscribed.append(found)
        if tag == "table" and "data-workload" in found:
            self._table = str(found["data-workload"])
            self.tables[self._table] = []
        if tag == "tr" and self._table and "data-step" in found:
            self.tables[self._table].append(found)
        if tag == "g" and found.get("class") == "bar-step":
            self.bars.append(found)
        if tag == "p":
            self.paragraphs.append("")
        if tag == "figure":
            self._figure = str(found.get("id") or "")
        if tag == "rect" and self._figure.startswith("map-"):
            self.cells.setdefault(self._figure, []).append(str(found.get("class")))
        if found.get("id"):
            self.ids[str(found["id"])] = found
            self.text[str(found["id"])] = ""
            self._open.append(str(found["id"]))
        else:
            self._open.append("")
        if tag == "section" and "data-step" in found:
            self.steps.append(found)

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag not in ("rect", "meta", "br"):
            self._open.pop()
        if tag == "table":
            self._table = ""
        if tag == "figure":
            self._figure = ""
        self._tag = ""

    def handle_data(self, data: str) -> None:
        if self._tag == "text.node":
            self.labels.append(data)
        if self.paragraphs and self._tag.startswith("p."):
            self.paragraphs[-1] += data
        for ident in self._open:
            if ident:
                self.text[ident] += data


def _plan(tmp_path: Path, fmt: str, *extra: str, policy: str = "rightsize-example",
          manifests: tuple[str, ...] = (str(EXAMPLES / "manifests"),)
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", policy, "--inventory",
         str(EXAMPLES / "inventory.yaml"), "--format", fmt, *extra, *manifests],
        capture_output=True, text=True, check=False, cwd=tmp_path)


def _warned(tmp_path: Path, fmt: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return _plan(tmp_path, fmt, *extra, policy=str(WARNED / "roomy-limits.yaml"),
                 manifests=(str(EXAMPLES / "manifests"), str(WARNED / "hami.yaml"),
                            str(WARNED / "workflow.yaml")))


def test_chromium_renders_the_numbers_of_the_json(tmp_path: Path) -> None:
    path = browser("plan")
    report = json.loads(_plan(tmp_path, "json").stdout)
    done = _plan(tmp_path, "html", "-o", "plan.html")
    assert done.returncode in (0, 1) and done.stdout == ""
    assert "plan.html" in done.stderr
    page = tmp_path / "plan.html"
    assert "http://" not in page.read_text() and "https://" not in page.read_text()
    dom = _Dom()
    dom.feed(dump_dom(path, page))
    s = report["summary"]
    assert dom.text["gpus-before"] == str(s["gpusBefore"])
    assert dom.text["gpus-after"] == str(s["gpusAfter"])
    assert dom.text["nodes-total"] == str(s["nodesTotal"])
    assert [(d["data-step"], d["data-status"]) for d in dom.steps] == [
        (str(st["number"]), st["status"]) for st in (report["start"], *report["steps"])]
    start = report["start"]["gpus"]
    assert dom.ids["map-before"]["data-idle"] == str(start["idle"])
    assert dom.ids["map-before"]["data-device-plugin"] == str(start["devicePlugin"])
    drained = report["consolidation"]
    if drained is not None:
        assert dom.text["drain-removable"] == str(drained["nodesRemovable"])
        assert dom.text["drain-bound"] == str(drained["lowerBound"])
        assert dom.text["drain-cost"] == f"{drained['costPerHourFreed']:.2f}"  # as USD, $0.00
        assert f"${drained['costPerHourFreed']:.2f} per hour" in dom.text["consolidation"]
    screenshot(path, page, tmp_path / "shot" / "plan.png", 2000)


def test_html_to_stdout_is_one_page(tmp_path: Path) -> None:
    done = _plan(tmp_path, "html")
    assert done.returncode in (0, 1)
    assert done.stdout.startswith("<!DOCTYPE html>") and done.stdout.endswith("</html>\n")


def _warnings_of(report: dict[str, Any]) -> dict[str, set[str]]:
    """Each warning's text (the workload prefix off) → the workloads it names."""
    found: dict[str, set[str]] = {}
    for step in (report["start"], *report["steps"]):
        for warning in step["warnings"]:
            who, _, text = warning.partition(": ")
            found.setdefault(text or who, set()).update({who} if text else set())
    return found


def test_every_warning_the_json_gives_is_under_the_verdict(tmp_path: Path) -> None:
    path = browser("plan")
    report = json.loads(_warned(tmp_path, "json").stdout)
    assert _warned(tmp_path, "html", "-o", "plan.html").returncode == 0
    dom = _Dom()
    dom.feed(dump_dom(path, tmp_path / "plan.html"))
    want = _warnings_of(report)
    assert any("not simulated" in t for t in want) and any("HAMi" in t for t in want)
    assert {str(w["data-text"]): int(str(w["data-workloads"])) for w in dom.warnings} == {
        text: len(names) for text, names in want.items()}
    over = {st["number"]: len(st["oversubscribedGpus"])
            for st in (report["start"], *report["steps"]) if st["oversubscribedGpus"]}
    assert over and {int(str(o["data-step"])): int(str(o["data-gpus"]))
                     for o in dom.oversubscribed} == over
    verdict = dom.ids["verdict"]
    assert verdict["data-fits"] == "true" and verdict["class"] == "fits-warned"
    assert verdict["data-warnings"] == str(len(want) + len(over) + len(dom.whole))
    assert "every step fits" in dom.text["verdict"] and "warnings" in dom.text["verdict"]


def test_a_rung_that_moves_workloads_whole_says_so_under_the_verdict_and_in_its_step(
        tmp_path: Path) -> None:
    # The text's "moved whole (enabled-replicas is not enforced …)" and "wait for a later
    # rung" lines: an Argo Workflow and a RayCluster move whole at a 1 % rung.
    path = browser("plan")
    report = json.loads(_warned(tmp_path, "json").stdout)
    assert _warned(tmp_path, "html", "-o", "plan.html").returncode == 0
    dom = _Dom()
    dom.feed(dump_dom(path, tmp_path / "plan.html"))
    rungs = [st for st in report["steps"] if st.get("moved")]
    assert rungs and any(st["moved"]["whole"] for st in rungs)
    assert [(m["data-tf"], m["data-total"], m["data-whole"], m["data-waiting"])
            for m in dom.moved] == [
        (str(st["moved"]["tensorFusion"]), str(st["moved"]["total"]),
         str(len(st["moved"]["whole"])), str(len(st["moved"]["waiting"]))) for st in rungs]
    whole = {n for st in rungs for n in st["moved"]["whole"]}
    assert len(dom.whole) == 1 and dom.whole[0]["data-workloads"] == str(len(whole))
    box = dom.text["warnings"]
    assert "enabled-replicas caps that do not hold" in box
    assert all(name in box for name in whole)
    first = next(st for st in rungs if st["moved"]["whole"])
    assert f"step {first['number']:02d}" in box


def test_a_table_per_workload_says_what_the_json_says(tmp_path: Path) -> None:
    path = browser("plan")
    report = json.loads(_plan(tmp_path, "json").stdout)
    _plan(tmp_path, "html", "-o", "plan.html")
    dom = _Dom()
    dom.feed(dump_dom(path, tmp_path / "plan.html"))
    ran = [st for st in (report["start"], *report["steps"]) if st["gpus"] is not None]
    names = sorted({w["workload"] for st in ran for w in st["workloads"]})
    assert sorted(dom.tables) == names and len(names) >= 8
    for name in names:
        rows = dom.tables[name]
        assert [r["data-step"] for r in rows] == [str(st["number"]) for st in ran]
        for row, step in zip(rows, ran, strict=True):
            use = next((w for w in step["workloads"] if w["workload"] == name), None)
            if use is None:
                assert row["data-tf"] == row["data-dp"] == "0"
                continue
            assert (row["data-tf"], row["data-dp"], row["data-whole"], row["data-tflops"],
                    row["data-vram"], row["data-nodes"]) == (
                str(use["tensorFusionPods"]), str(use["devicePluginPods"]),
                str(use["wholeGpus"]), f"{use['tflops']:g}", str(use["vramMiB"]),
                str(len(use["nodes"])))
    # The saving over the steps, as a figure: one bar per step that ran.
    assert [(b["data-step"], b["data-gpus"], b["data-cost"]) for b in dom.bars] == [
        (str(st["number"]), str(st["gpus"]["devicePlugin"] + st["gpus"]["tensorFusion"]),
         f"{st['costPerHour']:g}") for st in ran]
    assert float(str(dom.bars[-1]["data-cost"])) == report["summary"]["costPerHourAfter"]


def test_the_maps_are_readable_and_the_inputs_are_named(tmp_path: Path) -> None:
    path = browser("plan")
    _plan(tmp_path, "html", "-o", "plan.html")
    dom = _Dom()
    dom.feed(dump_dom(path, tmp_path / "plan.html"))
    spec = yaml.safe_load((EXAMPLES / "inventory.yaml").read_text(encoding="utf-8"))["spec"]
    groups = [*(g for pool in spec["pools"] for g in pool["nodeGroups"]),
              *spec["devicePluginOnly"]]
    names = sorted(f"{g['name']}-{i:03d}" for g in groups for i in range(g["count"]))
    assert int(str(dom.ids["map-before"]["data-cell"])) >= 16
    assert dom.labels == names + names  # every node named, in both maps
    # One cell per GPU, so a row's GPUs can be counted: as many of each user as the JSON says.
    report = json.loads(_plan(tmp_path, "json").stdout)
    for ident, step in (("map-before", report["start"]), ("map-after", report["steps"][-1])):
        cells = dom.cells[ident]
        assert len(cells) == step["gpus"]["total"]
        assert (cells.count("d"), cells.count("t"), cells.count("i")) == (
            step["gpus"]["devicePlugin"], step["gpus"]["tensorFusion"], step["gpus"]["idle"])
    assert dom.text["input-policies"] == "rightsize-example"
    assert dom.text["input-inventory"] == str(EXAMPLES / "inventory.yaml")
    assert dom.text["input-manifests"] == str(EXAMPLES / "manifests")
    assert dom.text["input-version"] == __version__
    assert dom.text["input-operator"] == "the Helm chart's defaults"
    assert not any(p.strip() == "Removable:" for p in dom.paragraphs)


@pytest.mark.parametrize("which", ["plan", "verify"])
def test_no_horizontal_scroll_at_700_pixels(tmp_path: Path, which: str) -> None:
    path = browser("plan")
    if which == "plan":
        _warned(tmp_path, "html", "-o", "page.html")
    else:
        subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover",
                        "--inventory", str(EXAMPLES / "inventory.yaml"),
                        str(EXAMPLES / "manifests"), "--cluster",
                        str(EXAMPLES / "cluster" / "after-takeover.yaml"), "--format", "html",
                        "-o", "page.html"], capture_output=True, check=False, cwd=tmp_path)
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<script" not in page  # the probe below goes into a copy only
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE), encoding="utf-8")
    done = subprocess.run([path, *FLAGS, "--window-size=700,1000", "--dump-dom",
                           probe.as_uri()], capture_output=True, text=True, check=True,
                          timeout=120)
    dom = _Dom()
    dom.feed(done.stdout)
    assert dom.body.get("data-scroll") == "0"
