"""``recommend --metrics`` on hostile files (issue 24 §4): deep nesting is a located exit 2,
a file above the bound is refused before it is read, and a large one is read in bounded
memory (its samples never held as a whole-file JSON tree)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
END = 1_767_225_600
MANIFEST = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: serve, namespace: ml}\n"
            "spec:\n  template:\n    spec:\n      containers:\n        - name: c\n"
            "          resources: {limits: {nvidia.com/gpu: 1}}\n")


def tfpolicy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)


def refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr


def snapshot(answers: str) -> str:
    return ('{"apiVersion":"tfpolicy.dev/v1alpha1","kind":"MetricsSnapshot",\n'
            f'"end":{END},"window":"7d","step":"5m","answers":{answers}}}')


def test_deep_nesting_is_a_located_error(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(MANIFEST, encoding="utf-8")
    for depth in (2_000, 50_000):
        metrics = tmp_path / f"deep{depth}.json"
        metrics.write_text(snapshot("[" * depth + "]" * depth), encoding="utf-8")
        result = tfpolicy("recommend", "--metrics", str(metrics), str(manifest))
        # the file's "{" is level 1, so level 33 is the 32nd "[" of line 2
        column = metrics.read_text().splitlines()[1].index("[") + 1 + 31
        refused(result, f"{metrics}:2:{column}: error: nested deeper than 32 levels")


def test_deep_warnings_are_refused_not_a_crash(tmp_path: Path) -> None:
    """Nested below the decoder's limit but too deep to show: still one line, exit 2."""
    manifest, metrics = tmp_path / "m.yaml", tmp_path / "w.json"
    manifest.write_text(MANIFEST, encoding="utf-8")
    deep = "[" * 900 + "]" * 900
    answer = '{"status":"success","warnings":' + deep + ',"data":{"resultType":"matrix","result":[]}}'
    metrics.write_text(snapshot('{"activity":' + answer + ',"utilization":' + answer +
                                ',"framebuffer":' + answer + '}'), encoding="utf-8")
    result = tfpolicy("recommend", "--metrics", str(metrics), str(manifest))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_a_file_above_the_bound_is_refused_before_reading(tmp_path: Path) -> None:
    manifest, metrics = tmp_path / "m.yaml", tmp_path / "huge.json"
    manifest.write_text(MANIFEST, encoding="utf-8")
    with metrics.open("wb") as out:  # sparse: 300 MiB that take no disk
        out.truncate(300 << 20)
    refused(tfpolicy("recommend", "--metrics", str(metrics), str(manifest)),
            "the metrics file is 300 MiB, above the 256 MiB read")


def _series(count: int, step: int, points: int) -> dict[str, object]:
    return {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"namespace": "ml", "pod": f"serve-{i:04d}-7d9f8b6c5d-x7k2p",
                    "modelName": "NVIDIA A100-SXM4-80GB"},
         "values": [[END - (points - 1 - k) * step, f"{(i % 50 + k % 17) / 100:g}"]
                    for k in range(points)]} for i in range(count)]}}


def test_a_large_file_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """400 pods × 2,016 samples (16 MB of JSON): before, the whole tree of samples and then
    their tuples were held (about 17 × the file, 280 MB); now each series becomes two arrays
    of doubles as soon as it is read, so the peak stays near the text plus 16 bytes a sample."""
    count = 400
    manifest, metrics = tmp_path / "m.yaml", tmp_path / "large.json"
    manifest.write_text("".join(f"---\n{MANIFEST.replace('serve,', f'serve-{i:04d},')}"
                                for i in range(count)), encoding="utf-8")
    answers = {"activity": _series(count, 300, 2016), "utilization": _series(0, 300, 0),
               "framebuffer": _series(count, 86_400, 7)}
    metrics.write_text(snapshot(json.dumps(answers, separators=(",", ":"))), encoding="utf-8")
    size = metrics.stat().st_size
    assert size > 15 << 20
    # measured in a fresh parent, so no earlier child's peak counts
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], "
             "capture_output=True, text=True); sys.stdout.write(r.stdout); "
             "sys.stderr.write(f'{r.returncode} {resource.getrusage(resource.RUSAGE_CHILDREN)"
             ".ru_maxrss}')")
    result = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "tfpolicy.cli",
                             "recommend", "--metrics", str(metrics), str(manifest)],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    code, peak = (int(v) for v in result.stderr.split())  # the exit code, the peak in KiB
    assert code == 0
    assert result.stdout.count("    - match: {kinds: [Deployment]") == count
    assert peak < 160 << 10, f"peak RSS {peak >> 10} MiB for a {size >> 20} MiB file"
