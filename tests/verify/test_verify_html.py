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
    # The ledger by node, then GPU (the JSON keeps them by name).
    by_node = sorted(report["gpus"], key=lambda g: (g["node"], g["name"]))
    assert [(g["data-gpu"], g["data-node"], g["data-verdict"], g["data-available-tflops"],
             g["data-expected-vram"], g["data-partitions"], "off" in str(g.get("class")))
            for g in dom.gpus] == [
        (g["name"], g["node"], g["verdict"], f"{g['available']['tflops']:g}",
         str(g["expected"]["vramMiB"]), str(len(g["partitions"])), g["verdict"] != "ready")
        for g in by_node]
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


# In Chromium at 700 pixels: where each name cell breaks its lines, the character before
# each break (a break inside a word is a letter or digit there), and the page's overflow.
_BREAKS = """<script>
const cells = 'section.workload h2, table.pods th, table.pods td:nth-child(4), ' +
  '#gpus th, #gpus td:nth-child(2), #gpus td:nth-child(7), table.replicasets th';
const before = [];
for (const el of document.querySelectorAll(cells)) {
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let top = null, last = '';
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (let i = 0; i < n.length; i++) {
      const range = document.createRange(); range.setStart(n, i); range.setEnd(n, i + 1);
      const box = range.getClientRects()[0];
      if (!box || n.data[i] === ' ') { last = n.data[i]; continue; }
      if (top !== null && box.top > top + 2) before.push(last);
      top = box.top; last = n.data[i];
    }
  }
}
document.body.setAttribute('data-breaks', JSON.stringify(before));
document.body.setAttribute('data-scroll',
  document.documentElement.scrollWidth - document.documentElement.clientWidth);
</script></body>"""


class _Body(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.attrs: dict[str, str | None] = {}
        self.counts: list[str] = []
        self._in_counts = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.attrs = dict(attrs)
        if tag == "section":
            self.counts.append("")
            self._in_counts = False
        if tag == "p" and self.counts and not self.counts[-1]:
            self._in_counts = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._in_counts = False

    def handle_data(self, data: str) -> None:
        if self._in_counts:
            self.counts[-1] += data


def test_names_wrap_at_their_separators_at_700_pixels(tmp_path: Path) -> None:
    """Pod, GPU, node and workload names break after - . / (or a list's space), never
    inside a word; the page does not scroll sideways; the counts say what they count."""
    path = browser("verify report")
    examples = ROOT / "examples"
    subprocess.run([sys.executable, "-m", "tfpolicy.cli", "verify", "-p", "takeover",
                    "--step", "1", "--inventory", str(examples / "inventory.yaml"),
                    str(examples / "manifests"), "--cluster",
                    str(examples / "cluster" / "after-takeover.yaml"), "--format", "html",
                    "-o", "page.html"], capture_output=True, check=False, cwd=tmp_path)
    probe = tmp_path / "probe.html"
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    probe.write_text(page.replace("</body>", _BREAKS), encoding="utf-8")
    done = subprocess.run([path, "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", "--window-size=700,1000", "--dump-dom",
                           probe.as_uri()], capture_output=True, text=True, check=True,
                          timeout=120)
    body = _Body()
    body.feed(done.stdout)
    breaks = json.loads(str(body.attrs["data-breaks"]))
    assert len(breaks) > 20  # names do wrap at this width: the check below is not empty
    assert set(breaks) <= set("-./,; "), sorted(set(breaks))
    assert body.attrs["data-scroll"] == "0"
    stop = [c for c in body.counts if c.startswith("TensorFusion pods")]
    assert stop and all(" in the cluster, " in c and " expected" in c for c in stop)
    assert any(c.startswith("TensorFusion pods: 1 in the cluster, 0 expected by the step; ")
               for c in stop)


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
