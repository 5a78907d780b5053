"""A real Prometheus on a free loopback port, its TSDB backfilled with ``promtool``.

Skips only when the binaries are missing outside CI; in CI (``CI=true``) a
missing binary fails the test, as the task demands.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.recommend.dcgm_series import Workload, openmetrics


def binaries() -> tuple[str, str]:
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if prometheus is None or promtool is None:
        if os.environ.get("CI") == "true":
            pytest.fail("prometheus/promtool missing in CI (apt-get install -y prometheus)")
        pytest.skip("prometheus/promtool not installed")
    return prometheus, promtool


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def backfill(loads: list[Workload], folder: Path) -> Path:
    _, promtool = binaries()
    source, data = folder / "dcgm.om", folder / "data"
    with source.open("w", encoding="utf-8") as out:
        out.writelines(openmetrics(loads))
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(source),
                    str(data)], check=True, capture_output=True, timeout=600)
    source.unlink()
    return data


@contextmanager
def serving(data: Path, folder: Path) -> Iterator[str]:
    prometheus, _ = binaries()
    port = free_port()
    config = folder / "prometheus.yml"
    config.write_text("global: {scrape_interval: 1h}\nscrape_configs: []\n", encoding="utf-8")
    log = (folder / "prometheus.log").open("wb")
    proc = subprocess.Popen(
        [prometheus, f"--config.file={config}", f"--storage.tsdb.path={data}",
         f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=100y",
         "--query.lookback-delta=5m"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_ready(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/-/ready", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError("prometheus did not become ready in 120 s")
