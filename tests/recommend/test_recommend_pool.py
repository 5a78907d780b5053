"""A pre-allocating server against a real Prometheus (issue 32): the pool is not the need.

The TSDB holds ``scenario.pool_fleet()``: dcgm-exporter shows 90 % of an A100 80GB in
use on two vLLM pods serving a 0.5B model; one also exports vLLM's own KV-cache gauge
(peak 5 %). The recommendation must follow the model, not the pool.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.recommend.dcgm_series import END
from tests.recommend.prometheus_server import backfill, serving
from tests.recommend.scenario import WINDOW, pool_fleet

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = str(ROOT / "examples" / "metrics" / "vllm-small-model.yaml")
BUNDLED = ROOT / "examples" / "metrics" / "vllm-small-model-2d.json"
GIB = 1 << 30
MIB = 1 << 20


@pytest.fixture(scope="module")
def pool_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("prometheus-pool")
    with serving(backfill(pool_fleet(), folder), folder) as url:
        yield url


def tfpolicy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def live(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return tfpolicy("recommend", "--prometheus", url, "--window", WINDOW, "--end", str(END),
                    "--resolution", "10m", *extra, MANIFEST)


def limits(text: str) -> dict[str, int]:
    from tfpolicy import yamlio
    from tfpolicy.gpus.quantity import parse_quantity
    found = {}
    for doc in yamlio.load_all(text, file="out"):
        for item in doc["spec"].get("workloads", []):
            vram = item["resources"]["vram"]
            assert vram["request"] == vram["limit"]  # the pool is taken at start
            found[item["match"]["names"][0]] = int(parse_quantity(vram["limit"]))
    return found


def peak_mib(text: str, name: str) -> int:
    """The framebuffer maximum the evidence comment of workload ``name`` shows."""
    found = re.search(rf"# Deployment {name}:.*\n.*VRAM MiB p50/p95/max [0-9]+/[0-9]+/([0-9]+)",
                      text)
    assert found is not None, text
    return int(found.group(1))


def test_the_limit_follows_the_model_not_the_pool(pool_url: str) -> None:
    result = live(pool_url)
    assert result.returncode == 0, result.stderr
    sized = limits(result.stdout)
    assert "takeover" not in result.stdout  # a 90 % framebuffer is not a whole-card need
    # Qwen2.5-0.5B: 0.494e9 parameters × 2 bytes; the overhead of 2 GiB per GPU
    weights, overhead = 0.494e9 * 2, 2 * GIB
    # with vLLM's own gauge: its KV-cache pool is what DCGM showed, less weights and
    # overhead; 5 % of it was the peak in use
    shown = peak_mib(result.stdout, "qwen-small-vllm")
    assert shown > 0.88 * 80 * 1024  # the pool, as DCGM saw it
    kv = 0.05 * (shown * MIB - weights - overhead)
    assert abs(sized["qwen-small-vllm"] - (weights + overhead + kv) * 1.15) <= 2 * MIB
    # without it, the default budget: 4 sequences × 8192 tokens × 24 layers × 2 (K and V)
    # × 2 KV heads × 64 × 2 bytes
    budget = 4 * 8192 * 2 * 24 * 2 * 64 * 2
    assert abs(sized["qwen-small-batch"] - (weights + overhead + budget) * 1.15) <= 2 * MIB
    assert all(limit < 8 * GIB for limit in sized.values())  # not the 72 GiB pool
    # the measured pool is the one the setting takes of the card: 0.90 × 80 GiB
    assert ("is vLLM's pre-allocated pool (--gpu-memory-utilization 0.90; 72.00Gi of the "
            "card's 80.00Gi, as measured), not its need") in result.stdout
    assert "cross-check" not in result.stdout + result.stderr
    assert "peak 5% in use of its" in result.stdout
    assert "no cache metric: the default budget, 4 sequences × 8192 tokens" in result.stdout


def test_the_setting_is_judged_as_check_judges_it(pool_url: str) -> None:
    """0.90 of a limit of need × 1.15 holds the need: no change is asked (check, on the
    unchanged manifest under this policy, flags nothing: test below)."""
    result = live(pool_url)
    sized = limits(result.stdout)
    assert "set --gpu-memory-utilization" not in result.stdout + result.stderr
    assert "[info]" not in result.stderr
    for name, limit in sized.items():
        line = re.search(rf"# Deployment {name}:.*(?:\n    # .*)*?\n    # setting: vLLM "
                         r"\(--gpu-memory-utilization 0.90\) takes 0.9 × the limit = "
                         r"([0-9.]+)Gi, which holds the need: no change \(check flags nothing\)",
                         result.stdout)
        assert line is not None, result.stdout
        need = limit / 1.15
        # under the soft limiter the process sees the limit as its total
        assert abs(float(line.group(1)) * GIB - 0.9 * limit) < 0.01 * GIB
        assert 0.9 * limit >= need


def test_the_cache_answer_is_saved_and_read_back(pool_url: str, tmp_path: Path) -> None:
    saved = tmp_path / "m.json"
    result = live(pool_url, "--save-metrics", str(saved))
    assert result.returncode == 0, result.stderr
    cache = json.loads(saved.read_text())["answers"]["cache"]["data"]["result"]
    assert [s["metric"]["pod"] for s in cache] == ["qwen-small-vllm-5c7d9b8f6d-h2k4m"]
    offline = tfpolicy("recommend", "--metrics", str(saved), MANIFEST)
    assert offline.returncode == 0 and offline.stdout == result.stdout


def test_the_bundled_example_is_this_fleet(pool_url: str) -> None:
    """examples/metrics/vllm-small-model-2d.json was saved from this Prometheus."""
    offline = tfpolicy("recommend", "--metrics", str(BUNDLED), MANIFEST)
    assert offline.returncode == 0, offline.stderr
    assert live(pool_url).stdout == offline.stdout


def test_check_warns_when_a_limit_starves_the_pool(tmp_path: Path) -> None:
    """A hand-written 1Gi limit: vLLM's 0.90 of it cannot hold the weights and overhead."""
    policy = tmp_path / "p.yaml"
    policy.write_text("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
                      "metadata: {name: tiny}\nspec:\n  stage: rightsize\n  resources:\n"
                      "    tflops: {request: '10', limit: '20'}\n"
                      "    vram: {request: 1Gi, limit: 1Gi}\n", encoding="utf-8")
    result = tfpolicy("check", "-p", str(policy), MANIFEST)
    starved = [x for x in result.stdout.splitlines() if "starves" in x]
    assert len(starved) == 2, result.stdout
    assert all("vLLM (--gpu-memory-utilization 0.90) takes 0.9 × the limit = 0.90Gi" in x and "(webhook-framework-pool)" in x
               for x in starved)


def test_the_recommended_limits_do_not_starve_the_pool(tmp_path: Path) -> None:
    """recommend's own limits, checked: no pool warning (and the shipped 16Gi example does
    warn on the example fleet's Llama-3.1-8B server)."""
    policy = tmp_path / "recommended.yaml"
    result = tfpolicy("recommend", "--metrics", str(BUNDLED), MANIFEST)
    policy.write_text(result.stdout, encoding="utf-8")
    checked = tfpolicy("check", "-p", str(policy), MANIFEST)
    assert checked.returncode == 1 and "would set" in checked.stdout
    assert "framework-pool" not in checked.stdout
    shipped = tfpolicy("check", "-p", "rightsize-example", str(ROOT / "examples" / "manifests"))
    assert "Deployment/ml-serving/llama-8b-vllm: container vllm: vram-limit 16.00Gi starves" \
        in shipped.stdout


def test_plan_warns_when_a_limit_starves_the_pool(tmp_path: Path) -> None:
    """plan says it at the step that rolls the starved workload; recommend's own limits,
    planned, do not."""
    inventory = str(ROOT / "examples" / "inventory.yaml")
    manifests = str(ROOT / "examples" / "manifests")
    shipped = tfpolicy("plan", "-p", "rightsize-example", "--inventory", inventory, manifests)
    assert shipped.returncode == 0, shipped.stdout + shipped.stderr
    steps = shipped.stdout.split("\n\nstep ")
    starved = [s.split(":", 1)[0] for s in steps if "starves" in s]
    assert starved and all("rightsize" in name for name in starved), shipped.stdout
    assert ("  warning: Deployment/ml-serving/llama-8b-vllm: container vllm: vram-limit "
            "16.00Gi starves a pre-allocating framework: vLLM (--gpu-memory-utilization 0.90) "
            "takes 0.9 × the limit = 14.40Gi") in shipped.stdout
    # only a step that puts the workload on TensorFusion with the limit warns: takeover's
    # whole cards do not
    assert not any("starves" in s for s in steps if s.split(":", 1)[0].endswith(
        ("takeover-1", "takeover-25", "takeover-50", "takeover")))
    recommended = tfpolicy("recommend", "--metrics",
                           str(ROOT / "examples" / "metrics" / "example-fleet-2d.json"), manifests)
    assert recommended.returncode == 0, recommended.stderr
    assert "vram: {request: 24680Mi, limit: 24680Mi}" in recommended.stdout
    policy = tmp_path / "recommended.yaml"
    policy.write_text(recommended.stdout, encoding="utf-8")
    planned = tfpolicy("plan", "-p", str(policy), "--inventory", inventory, manifests)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "llama-8b-vllm" in planned.stdout and "starves" not in planned.stdout


def test_a_whole_card_judges_no_setting_in_any_line() -> None:
    """A workload that keeps its card gets no vram-limit, so neither the rule nor the
    check may say its setting must change."""
    from tfpolicy.recommend.pool import Need, PoolSizing, whole_card
    need = Need(GIB, GIB, GIB, "weights", "working")
    judged = PoolSizing(4 * GIB, need, 70_000.0,
                        ("limit = need × (1 + margin); vLLM's setting must change to start "
                         "under it (check)", "check: container vllm: too small"),
                        ("check: container vllm: too small",), "")
    kept = whole_card(judged)
    assert kept.lines == ("limit = need × (1 + margin)",
                          "setting: not judged, since the workload keeps a whole card and no "
                          "vram-limit is written (check flags nothing)")
    assert kept.notes == () and kept.verdict is None
