"""``tfpolicy recommend``'s bad input: one line, exit 2, nothing on stdout, no file written.

Prometheus down (a closed port), slow (a socket that never answers), an HTTP
error with Prometheus's JSON body, an answer that is not JSON; offline files
that are not JSON, not a snapshot, or hold an error answer.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from tests.recommend.prometheus_server import free_port

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = str(ROOT / "examples" / "manifests")


def tfpolicy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_prometheus_down(tmp_path: Path) -> None:
    saved = tmp_path / "m.json"
    result = tfpolicy("recommend", "--prometheus", f"http://127.0.0.1:{free_port()}",
                      "--save-metrics", str(saved), MANIFESTS)
    refused(result, "cannot reach http://127.0.0.1:")
    assert not saved.exists()


def test_prometheus_too_slow() -> None:
    with socket.socket() as silent:  # accepts connections into its backlog, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        result = tfpolicy("recommend", "--prometheus", f"http://127.0.0.1:{port}",
                          "--timeout", "0.5", MANIFESTS)
    refused(result, "activity query timed out after 0.5s")


class _Answers(BaseHTTPRequestHandler):
    status = 200
    body = b""

    def do_GET(self) -> None:
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Answers]]]:
    handler = type("Handler", (_Answers,), {})
    httpd = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(("status", "body", "message"), [
    (422, b'{"status":"error","errorType":"execution","error":"query processing would load '
          b'too many samples into memory"}', "answered an error: execution: query processing"),
    (502, b"<html>bad gateway</html>", "activity query: HTTP 502"),
    (200, b"not json at all", "activity query: the answer is not JSON"),
    (200, b'{"status":"success","warnings":["remote read: partial"],"data":{"resultType":'
          b'"matrix","result":[]}}', "warnings (partial data)"),
    (200, b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":'
          b'{"pod":"x"},"values":[]}]}}', "without the namespace and pod labels"),
    (200, b"[" * 100_000 + b"]" * 100_000, "activity query: the answer is nested too deep"),
])
def test_prometheus_answers_that_cannot_be_used(server: tuple[str, type[_Answers]], status: int,
                                                body: bytes, message: str) -> None:
    url, handler = server
    handler.status, handler.body = status, body
    refused(tfpolicy("recommend", "--prometheus", url, MANIFESTS), message)


def test_one_source_exactly(tmp_path: Path) -> None:
    refused(tfpolicy("recommend", MANIFESTS), "exactly one of --prometheus")
    refused(tfpolicy("recommend", "--prometheus", "http://127.0.0.1:1", "--metrics", "x.json",
                     MANIFESTS), "exactly one of --prometheus")
    refused(tfpolicy("recommend", "--prometheus", "file:///etc/passwd", MANIFESTS),
            "not an http(s) URL")


def test_bad_metrics_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "kind": "MetricsSnapshot",\n  "end": ,\n}\n', encoding="utf-8")
    refused(tfpolicy("recommend", "--metrics", str(broken), MANIFESTS), f"{broken}:3:10: error:")
    other = tmp_path / "other.json"
    other.write_text('{"kind": "Secret", "data": {"password": "hunter2"}}', encoding="utf-8")
    result = tfpolicy("recommend", "--metrics", str(other), MANIFESTS)
    refused(result, "not a MetricsSnapshot")
    assert "hunter2" not in result.stderr  # never echo a file's content


def snapshot(activity: object) -> str:
    empty = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    return json.dumps({"kind": "MetricsSnapshot", "end": 1767225600, "window": "2d",
                       "step": "5m", "answers": {"activity": activity, "utilization": empty,
                                                 "framebuffer": empty}})


def test_an_error_answer_in_a_metrics_file(tmp_path: Path) -> None:
    file = tmp_path / "m.json"
    file.write_text(snapshot({"status": "error", "errorType": "timeout", "error": "x"}))
    refused(tfpolicy("recommend", "--metrics", str(file), MANIFESTS),
            "activity answer: Prometheus answered an error: timeout: x")


def test_the_window_must_match_the_file(tmp_path: Path) -> None:
    file = tmp_path / "m.json"
    file.write_text(snapshot({"status": "success", "data": {"resultType": "matrix",
                                                              "result": []}}))
    refused(tfpolicy("recommend", "--metrics", str(file), "--window", "7d", MANIFESTS),
            "--window 7d: the metrics file covers 2d")
    refused(tfpolicy("recommend", "--metrics", str(file), MANIFESTS),
            "no workload could be sized")


def test_no_gpu_workload(tmp_path: Path) -> None:
    refused(tfpolicy("recommend", "--metrics", "x.json",
                     str(ROOT / "examples" / "manifests" / "monitoring.yaml")),
            "no GPU workload in the manifests")


def test_an_ambiguous_pod_is_reported_not_guessed(tmp_path: Path) -> None:
    manifests = tmp_path / "m.yaml"
    gpu = "    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n"
    manifests.write_text("".join(
        f"---\napiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: ns}}\n"
        f"spec:\n  template:\n{gpu}" for kind, name in
        (("Deployment", "a"), ("ReplicaSet", "a-7d9f8b6c5d"), ("StatefulSet", "b"))))

    def series(pod: str, value: float, step: int) -> dict[str, object]:
        return {"metric": {"namespace": "ns", "pod": pod, "modelName": "NVIDIA L4"},
                "values": [[1767225600 - step * i, str(value)] for i in range(100)]}

    def matrix(*items: dict[str, object]) -> dict[str, object]:
        return {"status": "success", "data": {"resultType": "matrix", "result": list(items)}}

    snap = tmp_path / "s.json"
    snap.write_text(json.dumps({"kind": "MetricsSnapshot", "end": 1767225600, "window": "2d",
                                "step": "5m", "answers": {
        "activity": matrix(series("a-7d9f8b6c5d-x7k2p", 0.5, 300), series("b-0", 0.25, 300)),
        "utilization": matrix(),
        "framebuffer": matrix(series("a-7d9f8b6c5d-x7k2p", 9000, 86400),
                              series("b-0", 4096, 86400))}}))
    result = tfpolicy("recommend", "--metrics", str(snap), str(manifests))
    assert result.returncode == 0, result.stderr
    assert ("pod ns/a-7d9f8b6c5d-x7k2p fits several workloads (Deployment/ns/a, "
            "ReplicaSet/ns/a-7d9f8b6c5d): not used") in result.stderr
    assert "Deployment/ns/a: left out: no GPU activity" in result.stderr
    assert "names: [b]" in result.stdout and "names: [a" not in result.stdout


def test_a_workload_is_named_as_check_names_it(tmp_path: Path) -> None:
    """recommend's left-out line and check's finding name one object the same way:
    ``Kind/namespace/name``, the form of every command (docs/commands.md)."""
    manifests = tmp_path / "m.yaml"
    manifests.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
        "spec:\n  template:\n    spec: {containers: [{name: c, resources: "
        "{limits: {nvidia.com/gpu: 1}}}]}\n")
    snap = tmp_path / "s.json"
    empty = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    snap.write_text(json.dumps({"kind": "MetricsSnapshot", "end": 1767225600, "window": "2d",
                                "step": "5m", "answers": {
        "activity": empty, "utilization": empty, "framebuffer": empty}}))
    said = tfpolicy("recommend", "--metrics", str(snap), str(manifests)).stderr
    checked = tfpolicy("check", "-p", "takeover", str(manifests)).stdout
    assert "] Deployment/ns/web: " in checked, checked
    assert "(Deployment/ns/web: no GPU activity series" in said, said
