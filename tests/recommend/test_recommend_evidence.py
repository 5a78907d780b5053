"""Cross-checks against a real Prometheus: figures that contradict each other are said,
and ``recommend`` and ``check`` give one answer on the setting.

The TSDB holds ``scenario.evidence_fleet()`` for ``tests/recommend/evidence/manifests.yaml``:
a vLLM server measured under its model's weights, a "pool" at 0.14 of the card with the
flag unset, a 2-GPU tensor-parallel pod, a token rate its GPU cannot have served, a busy
GPU under an idle server, and a setting too low for the limit.
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
from tests.recommend.scenario import WINDOW, evidence_fleet

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = str(ROOT / "tests" / "recommend" / "evidence" / "manifests.yaml")
GIB, MIB = 1 << 30, 1 << 20
CARD = 80 * GIB  # NVIDIA A100-SXM4-80GB in the GPU tables


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.CompletedProcess[str], Path]]:
    folder = tmp_path_factory.mktemp("prometheus-evidence")
    saved = folder / "metrics.json"
    with serving(backfill(evidence_fleet(), folder), folder) as url:
        yield tfpolicy("recommend", "--prometheus", url, "--window", WINDOW, "--end", str(END),
                       "--resolution", "10m", "--save-metrics", str(saved), MANIFEST), saved


def tfpolicy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def comment(text: str, name: str) -> str:
    """The evidence comment of workload ``name``."""
    found = re.search(rf"    # Deployment {name}:.*\n((?:    # .*\n)*)", text)
    assert found is not None, text
    return found.group(0)


def limit_of(text: str, name: str) -> int:
    from tfpolicy.gpus.quantity import parse_quantity
    found = re.search(rf"names: \[{name}\]}}\n      resources: .*vram: \{{request: (\w+), limit: "
                      r"(\w+)\}", text)
    assert found is not None and found.group(1) == found.group(2), text
    return int(parse_quantity(found.group(2)))


def peak(text: str, name: str) -> int:
    found = re.search(r"VRAM MiB p50/p95/max [0-9]+/[0-9]+/([0-9]+)", comment(text, name))
    assert found is not None
    return int(found.group(1)) * MIB


def test_a_measurement_under_the_weights_is_left_out(run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """Qwen2.5-7B in bf16 is 7.62e9 × 2 bytes = 14.19 GiB; DCGM never saw 11.1 GiB."""
    result, _ = run
    assert result.returncode == 0, result.stderr
    assert "names: [qwen7b-under]" not in result.stdout  # no limit rather than a guess
    said = next(x for x in result.stderr.splitlines() if "/qwen7b-under: left out:" in x)
    assert said.startswith("tfpolicy: [warning] Deployment/ml-evidence/qwen7b-under: left out: "
                           "the evidence contradicts itself: the ")
    measured = float(re.search(r"the ([0-9.]+)Gi measured at peak", said).group(1))
    assert 10.5 < measured < 11.2
    assert f"is below the {7.62e9 * 2 / GIB:.2f}Gi of the model's weights per GPU" in said
    # and it is not the pool the flag's default takes of the card either
    assert "0.14 of the card where vLLM (--gpu-memory-utilization not set: the default 0.92) " \
           f"would take {0.92 * 80:.2f}Gi" in said
    for cause in ("quantized", "--tensor-parallel-size / --pipeline-parallel-size",
                  "the series is another pod's"):
        assert cause in said
    header = result.stdout.split("---", 1)[0]
    assert f"#   {said.split('] ', 1)[1].replace(': left out', '', 1)}" in header


def test_a_pool_at_a_seventh_of_the_card_is_said_and_the_larger_pool_taken(
        run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """Qwen2.5-0.5B, flag unset: 0.92 × 80 GiB = 73.6 GiB expected, 0.14 of the card seen.
    The KV-cache share (peak 5 %) applies to the larger pool, 73.6 GiB less weights and
    overhead, so the limit holds the share whichever figure is true."""
    result, _ = run
    text = comment(result.stdout, "qwen-small-pool14")
    line = ("cross-check: the {:.2f}Gi measured is 0.14 of the card, not the 73.60Gi that vLLM "
            "(--gpu-memory-utilization not set: the default 0.92) takes of its 80.00Gi")
    shown = peak(result.stdout, "qwen-small-pool14")
    assert line.format(shown / GIB) in text
    assert f"Deployment/ml-evidence/qwen-small-pool14: {line.format(shown / GIB)}" in \
        result.stderr.replace("tfpolicy: [warning] ", "")
    weights = 0.494e9 * 2
    kv = 0.05 * (int(0.92 * CARD) - weights - 2 * GIB)
    assert abs(limit_of(result.stdout, "qwen-small-pool14") - (weights + 2 * GIB + kv) * 1.15) \
        <= 2 * MIB
    assert "KV cache 0.00Gi" not in result.stdout


def test_a_tensor_parallel_pod_is_sized_per_gpu(
        run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """Qwen2.5-7B over two GPUs: 7.10 GiB of weights each, and each GPU's 0.92 pool as
    measured; nothing contradicts, so nothing is said."""
    result, _ = run
    text = comment(result.stdout, "qwen7b-tp2")
    assert "cross-check" not in text and "qwen7b-tp2" not in result.stderr
    assert "(Qwen2.5-7B, 7.62B parameters × 2 bytes (16-bit) ÷ 2 GPUs)" in text
    assert "73.60Gi of the card's 80.00Gi, as measured" in text
    weights = 7.62e9 * 2 / 2
    kv = 0.05 * (peak(result.stdout, "qwen7b-tp2") - weights - 2 * GIB)
    assert abs(limit_of(result.stdout, "qwen7b-tp2") - (weights + 2 * GIB + kv) * 1.15) <= 2 * MIB


def test_tokens_its_gpu_cannot_have_made_leave_it_out(
        run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """3,000 tokens/s of an 8.03B model need 2 × 8.03e9 × 3000 = 48.2 TFLOPS; the GPU was
    active 5 % of the time on a 312 TFLOPS card."""
    result, _ = run
    said = next(x for x in result.stderr.splitlines() if "/llama8b-tokens: left out:" in x)
    found = re.search(r"the ([0-9.]+) tokens/s generated by a 8.03B-parameter model need at "
                      r"least ([0-9.]+) TFLOPS per GPU .*above the ([0-9.]+) TFLOPS measured", said)
    assert found is not None, said
    rate, least, measured = (float(x) for x in found.groups())
    assert abs(rate - 3000) < 100 and abs(least - 2 * 8.03e9 * rate / 1e12) < 0.01
    # the mean of the 10-minute maxima of a GPU active 5 % of the time
    assert measured < 0.15 * 312 and measured < least


def test_a_busy_gpu_under_an_idle_server_is_said_and_followed(
        run: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path) -> None:
    """One token every ten seconds does not keep a GPU half busy: said, and the TFLOPS limit
    is the measurement's, the same as without the token counters."""
    result, saved = run
    assert "cross-check: the 176.19 TFLOPS measured on average is more than 1000 ×" in \
        comment(result.stdout, "qwen-small-busy")
    snapshot = json.loads(saved.read_text(encoding="utf-8"))
    assert snapshot["answers"]["generated"]["data"]["result"]  # the counters were saved
    for key in ("generated", "prompted"):
        del snapshot["answers"][key]
    blind = tmp_path / "no-tokens.json"
    blind.write_text(json.dumps(snapshot), encoding="utf-8")
    without = tfpolicy("recommend", "--metrics", str(blind), MANIFEST)
    tflops = r"names: \[qwen-small-busy\]\}\n      resources: \{tflops: (\{[^}]*\})"
    assert re.search(tflops, without.stdout).group(1) == re.search(tflops, result.stdout).group(1)
    assert "names: [llama8b-tokens]" in without.stdout  # without tokens, nothing contradicts


def test_the_saved_metrics_give_the_same_policy(
        run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    result, saved = run
    offline = tfpolicy("recommend", "--metrics", str(saved), MANIFEST)
    assert (offline.returncode, offline.stdout, offline.stderr) == (0, result.stdout,
                                                                    result.stderr)


def test_recommend_and_check_give_one_answer(
        run: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path) -> None:
    """Every setting recommend asks to change, check flags on the unchanged manifests under
    the recommended policy, word for word and at the same severity, and nothing more."""
    result, _ = run
    policy = tmp_path / "recommended.yaml"
    policy.write_text(result.stdout, encoding="utf-8")
    checked = tfpolicy("check", "-p", str(policy), MANIFEST)
    flagged = set(re.findall(r"\[(warning|info)\] Deployment/ml-evidence/([\w-]+): "
                             r"(container vllm: .*) \(webhook-framework-pool\)", checked.stdout))
    asked = set(re.findall(r"tfpolicy: \[(warning|info)\] Deployment/ml-evidence/([\w-]+): "
                           r"check: (container vllm: .*)", result.stderr))
    assert asked == flagged and asked, (asked, flagged)
    commented = set(re.findall(r"    # check: (container vllm: .*)", result.stdout))
    assert commented == {said for _, _, said in asked}
    low = next(said for _, name, said in asked if name == "qwen-small-low")
    assert ("warning", "qwen-small-low", low) in asked
    assert "vLLM (--gpu-memory-utilization 0.10) takes 0.1 × the limit" in low
    assert re.search(r"set --gpu-memory-utilization 0\.[0-9]{2}$", low)
