"""1,000 GPU workloads × 7 days: the whole ``recommend`` run, queries included, at scale.

The answers are what Prometheus returns for the server-side aggregated
queries (one series per pod at the 5-minute step, 2,016 points each, plus
the daily framebuffer peaks), served over loopback HTTP, so the run
exercises the transfer, JSON decoding, pod mapping, histograms and the policy
text at fleet size. How long it takes is a benchmark's business, not a test's:
a timed test fails on a busy machine and proves nothing on a quiet one
(docs/recommend.md, Performance, gives the measured figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
END, STEP, WINDOW = 1_767_225_600, 300, 7 * 86_400
COUNT = 1000


def pod(i: int) -> str:
    return f"serve-{i:04d}-7d9f8b6c5d-x7k2p"


def matrix(step: int, value: object) -> bytes:
    times = range(END - WINDOW + step, END + 1, step)
    result = [{"metric": {"namespace": "ml", "pod": pod(i), "modelName": "NVIDIA L4"},
               "values": [[t, str(value(i, t))] for t in times]}  # type: ignore[operator]
              for i in range(COUNT)]
    return json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                     "result": result}}).encode()


def manifests() -> str:
    return "".join(
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: serve-{i:04d}, "
        "namespace: ml}\nspec:\n  template:\n    spec:\n      containers:\n"
        "        - name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n"
        for i in range(COUNT))


@pytest.fixture(scope="module")
def answers() -> Iterator[str]:
    bodies = {
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": matrix(STEP, lambda i, t: round(
            (i % 50) / 100 + ((t // STEP) % 17) / 100, 2)),
        "DCGM_FI_DEV_GPU_UTIL": json.dumps({"status": "success", "data": {
            "resultType": "matrix", "result": []}}).encode(),
        "DCGM_FI_DEV_FB_USED": matrix(86_400, lambda i, t: 1000 + 10 * i + (t // 86_400) % 7),
        # no pre-allocating server here: the KV-cache gauges' and token counters' queries
        # find nothing
        **{name: json.dumps({"status": "success", "data": {
            "resultType": "matrix", "result": []}}).encode()
           for name in ("sglang:token_usage", "generation_tokens", "prompt_tokens")},
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)["query"][0]
            body = next(b for name, b in bodies.items() if name in query)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_thousand_workloads_a_week_each_get_their_override(answers: str, tmp_path: Path) -> None:
    files = tmp_path / "fleet.yaml"
    files.write_text(manifests(), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "tfpolicy.cli", "recommend", "--prometheus", answers,
         "--window", "7d", "--end", str(END), str(files)],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("    - match: {kinds: [Deployment]") == COUNT
