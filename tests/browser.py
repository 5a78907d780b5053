"""Headless Chromium for the HTML report tests: found once, run the same way by each.

Outside CI a missing browser skips the test; in CI (``CI=true``) it fails,
since ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
PNG = b"\x89PNG\r\n\x1a\n"


def browser(report: str) -> str:
    """The browser's path; ``report`` names what CI must render when it is missing."""
    if BROWSER is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"chromium is not installed: CI must render the HTML {report}")
        pytest.skip("chromium is not installed (CI installs it)")
    return BROWSER


def dump_dom(path: str, page: Path) -> str:
    """The DOM as the browser built it from ``page``."""
    return subprocess.run([path, *FLAGS, "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, check=True, timeout=120).stdout


def screenshot(path: str, page: Path, shot: Path, height: int) -> None:
    """A PNG of ``page`` 1280 pixels wide, checked to be a real image."""
    shot.parent.mkdir()
    subprocess.run([path, *FLAGS, f"--window-size=1280,{height}", f"--screenshot={shot}",
                    page.as_uri()], capture_output=True, check=True, timeout=120)
    assert shot.read_bytes()[:8] == PNG and shot.stat().st_size > 10_000
