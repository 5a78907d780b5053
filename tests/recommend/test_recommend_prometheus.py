"""``tfpolicy recommend`` against a real Prometheus (Debian's 2.42), end to end.

The TSDB holds ``scenario.fleet()``, backfilled with ``promtool``; the
command runs as a subprocess, its policy is then validated, planned, and
re-derived from the offline metrics file it saved.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.recommend.dcgm_series import END, points
from tests.recommend.scenario import WINDOW, fleet

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = str(ROOT / "examples" / "manifests")


def tfpolicy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def live(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return tfpolicy("recommend", "--prometheus", url, "--window", WINDOW, "--end", str(END),
                    *extra, MANIFESTS)


def overrides(text: str) -> dict[str, dict[str, dict[str, str]]]:
    from tfpolicy import yamlio
    found = {}
    for doc in yamlio.load_all(text, file="out"):
        for item in doc["spec"].get("workloads", []):
            found[item["match"]["names"][0]] = item["resources"]
    return found


def test_live_recommendation_of_the_example_fleet(prometheus_url: str, tmp_path: Path) -> None:
    saved = tmp_path / "metrics.json"
    result = live(prometheus_url, "--save-metrics", str(saved))
    assert result.returncode == 0, result.stderr
    sized = overrides(result.stdout)
    assert sorted(sized) == ["embed-corpus-2024-10", "llama-8b-vllm", "ray-serve-llm",
                             "resnet-ddp"]
    assert "takeover-ml-training" in result.stdout  # llm-finetune runs hot on 4 GPUs
    assert "CronJob/ml-training/nightly-eval: too little data" in result.stdout
    assert "Deployment/ml-serving/reranker: left out: no GPU activity" in result.stderr
    assert "not-in-the-manifests" not in result.stdout + result.stderr
    # the saved answers give the same policy, byte for byte, with no Prometheus
    offline = tfpolicy("recommend", "--metrics", str(saved), MANIFESTS)
    assert offline.returncode == 0 and offline.stdout == result.stdout


def test_limits_follow_the_measured_peaks(prometheus_url: str) -> None:
    """The limit is P99 × 1.15 of the per-step maxima: between the raw P99 and the raw
    maximum of the scraped samples (× 1.15, ± one 5 % bucket), computed here from the
    generated data alone."""
    sized = overrides(live(prometheus_url).stdout)
    peaks = {"llama-8b-vllm": 312.0, "ray-serve-llm": 121.0, "resnet-ddp": 312.0}
    for load in fleet():
        name = next((n for n in peaks if load.runs[0].pod.startswith(n + "-")), None)
        if name is None:
            continue
        raw = sorted(a * peaks[name] for run in load.runs for g in range(load.gpus)
                     for _, a, _ in points(load, run, g))
        limit = int(sized[name]["tflops"]["limit"])
        assert raw[int(0.99 * len(raw))] * 1.15 * 0.95 <= limit <= raw[-1] * 1.15 * 1.06, name


def test_the_policy_validates_and_plans(prometheus_url: str, tmp_path: Path) -> None:
    policy = tmp_path / "recommended.yaml"
    policy.write_text(live(prometheus_url).stdout, encoding="utf-8")
    assert tfpolicy("validate", str(policy)).returncode == 0
    plan = tfpolicy("plan", "-p", str(policy), "--inventory",
                    str(ROOT / "examples" / "inventory.yaml"), MANIFESTS)
    assert plan.returncode in (0, 1), plan.stderr
    assert "llama-8b-vllm" in plan.stdout


def test_missing_metrics_in_the_window_leave_everything_out(prometheus_url: str) -> None:
    """A window long before the data: every workload lacks series, so nothing is sized."""
    result = tfpolicy("recommend", "--prometheus", prometheus_url, "--window", "1d",
                      "--end", str(END - 30 * 86400), MANIFESTS)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("tfpolicy: error: no workload could be sized")
    assert result.stderr.count("\n") == 1


def test_a_query_error_from_prometheus_is_one_line(prometheus_url: str) -> None:
    # 1s steps over 30 days: more than 11000 points a series
    result = tfpolicy("recommend", "--prometheus", prometheus_url, "--window", "30d",
                      "--resolution", "1s", MANIFESTS)
    assert result.returncode == 2 and result.stdout == ""
    assert "11000 points" in result.stderr and result.stderr.count("\n") == 1


def test_answers_are_range_matrices_per_pod(prometheus_url: str, tmp_path: Path) -> None:
    saved = tmp_path / "m.json"
    assert live(prometheus_url, "--save-metrics", str(saved)).returncode == 0
    answers = json.loads(saved.read_text())["answers"]
    labels = {frozenset(s["metric"]) for s in answers["activity"]["data"]["result"]}
    assert labels == {frozenset({"namespace", "pod", "modelName"})}
    utilization_pods = {s["metric"]["pod"] for s in answers["utilization"]["data"]["result"]}
    assert "embed-corpus-2024-10-x4z7b" in utilization_pods


def test_the_bundled_metrics_file_is_this_fleet(prometheus_url: str) -> None:
    """examples/metrics was saved from this Prometheus: live and offline agree byte for byte."""
    bundled = ROOT / "examples" / "metrics" / "example-fleet-2d.json"
    offline = tfpolicy("recommend", "--metrics", str(bundled), MANIFESTS)
    assert offline.returncode == 0, offline.stderr
    assert live(prometheus_url, "--resolution", "10m").stdout == offline.stdout
