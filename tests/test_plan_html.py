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

from tests.browser import browser, dump_dom, screenshot

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class _Dom(HTMLParser):
    """Text and attributes of every element with an id, and the step sections."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, dict[str, str | None]] = {}
        self.text: dict[str, str] = {}
        self.steps: list[dict[str, str | None]] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
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

    def handle_data(self, data: str) -> None:
        for ident in self._open:
            if ident:
                self.text[ident] += data


def _plan(tmp_path: Path, fmt: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "plan", "-p", "rightsize-example", "--inventory",
         str(EXAMPLES / "inventory.yaml"), "--format", fmt, *extra, str(EXAMPLES / "manifests")],
        capture_output=True, text=True, check=False, cwd=tmp_path)


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
    screenshot(path, page, tmp_path / "shot" / "plan.png", 2000)


def test_html_to_stdout_is_one_page(tmp_path: Path) -> None:
    done = _plan(tmp_path, "html")
    assert done.returncode in (0, 1)
    assert done.stdout.startswith("<!DOCTYPE html>") and done.stdout.endswith("</html>\n")
