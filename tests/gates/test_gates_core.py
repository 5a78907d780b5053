"""The pure core of gates: metric names in a query, summaries, the window, one gate's
verdict, and what ``.tfpolicy.yaml`` may say (docs/gates.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfpolicy.errors import TfpolicyError
from tfpolicy.gates import Outcome, Pod, Series, Subject, Window, soak_window
from tfpolicy.gates.judge import judge_gate
from tfpolicy.gates.promql import metric_names, unknown_metric
from tfpolicy.gates.spec import Bound, Gate
from tfpolicy.gates.summary import summarise
from tfpolicy.policy.project_config import parse_config

WINDOW = Window(1000, 1600, 30)


@pytest.mark.parametrize(("query", "names"), [
    ("histogram_quantile(0.99, sum by (le, namespace, pod) "
     "(rate(vllm:e2e_request_latency_seconds_bucket[5m])))",
     ["vllm:e2e_request_latency_seconds_bucket"]),
    ('sum by (namespace, pod) (rate(http_requests_total{code=~"5.."}[5m])) or sum by '
     "(namespace, pod) (rate(http_requests_total[5m])) * 0", ["http_requests_total"]),
    ("rate(a_total[1m]) / on (pod) group_left (node) b offset 5m > bool 0", ["a_total", "b"]),
    ('{__name__="DCGM_FI_DEV_XID_ERRORS", pod!=""}', ["DCGM_FI_DEV_XID_ERRORS"]),
    ("max_over_time(up[5m:30s])", ["up"]),
])
def test_the_metric_names_a_query_reads(query: str, names: list[str]) -> None:
    assert metric_names(query) == names


def test_an_unknown_metric_is_named_with_the_closest_known_one() -> None:
    known = frozenset({"vllm:generation_tokens_total", "vllm:prompt_tokens_total", "up"})
    assert unknown_metric("rate(vllm:generation_token_total[5m])", known) == (
        "vllm:generation_token_total", "vllm:generation_tokens_total")
    assert unknown_metric("rate(vllm:generation_tokens_total[5m])", known) is None
    assert unknown_metric("nothing_like_it", known) == ("nothing_like_it", None)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=200))
def test_a_p95_is_a_measured_value_at_or_above_95_percent_of_them(values: list[float]) -> None:
    p95 = summarise(values, "p95")
    assert p95 in values
    assert sum(v <= p95 for v in values) >= 0.95 * len(values)
    assert sum(v < p95 for v in values) < 0.95 * len(values)
    assert min(values) <= summarise(values, "mean") <= max(values)
    assert summarise([values[0]] * 3, "mean") == values[0]


def test_the_window_waits_for_the_soak_and_coarsens_past_11000_points() -> None:
    assert soak_window(None, 2000, 600) == ("no TensorFusion pod of the rung has a Ready time: "
                                            "nothing to measure yet")
    assert "shorter than --min-soak 10m" in str(soak_window(1500, 2000, 600))
    assert soak_window(1000, 2000, 600) == Window(1000, 2000, 30)
    week = soak_window(0, 7 * 86400, 600)
    assert isinstance(week, Window) and week.step == 60 and week.length // week.step <= 11000


def _series(pod: str, value: float, count: int = 21) -> Series:
    return Series({"namespace": "ns", "pod": pod},
                  tuple((1000 + 30 * i, value) for i in range(count)))


SUBJECT = Subject("Deployment/ns/app", "ns", (Pod("ns", "tf-1", True), Pod("ns", "nat-1", False),
                                              Pod("ns", "nat-2", False)))


@pytest.mark.parametrize(("tf", "outcome"), [(1.14, Outcome.PASS), (1.16, Outcome.FAIL)])
def test_a_ratio_compares_the_sides_means(tf: float, outcome: Outcome) -> None:
    gate = Gate("latency", "x", Bound("maxRatio", 1.15))
    now = [_series("tf-1", tf), _series("nat-1", 0.9), _series("nat-2", 1.1),
           _series("other", 99.0)]
    result = judge_gate(gate, SUBJECT, WINDOW, now, None)
    assert result.outcome is outcome, result.message
    assert result.baseline == pytest.approx(1.0) and result.tensor_fusion == pytest.approx(tf)
    assert result.samples == (21, 42) and result.baseline_pods == ("ns/nat-1", "ns/nat-2")


def test_too_few_samples_or_no_series_wait() -> None:
    gate = Gate("latency", "x", Bound("maxRatio", 1.15), min_samples=30)
    short = judge_gate(gate, SUBJECT, WINDOW, [_series("tf-1", 1.0), _series("nat-1", 1.0)],
                       None)
    assert short.outcome is Outcome.WAIT
    assert short.message == ("too few samples: 30 needed on each side, found TensorFusion pods "
                             "21, baseline pods 21")
    none = judge_gate(gate, SUBJECT, WINDOW, [_series("other", 1.0)], None)
    assert none.outcome is Outcome.WAIT
    assert none.message == "the query returned no series for the pods of Deployment/ns/app"


def test_an_absolute_bound_holds_for_the_worst_pod() -> None:
    subject = Subject("Deployment/ns/app", "ns", (Pod("ns", "tf-1", True),
                                                  Pod("ns", "tf-2", True)))
    gate = Gate("errors", "x", Bound("max", 0.01), summary="max")
    result = judge_gate(gate, subject, WINDOW, [_series("tf-1", 0.001), _series("tf-2", 0.02)],
                        None)
    assert result.outcome is Outcome.FAIL and result.tensor_fusion == 0.02
    assert "(pods ns/tf-2); bound <= 0.01" in result.message


@pytest.mark.parametrize(("gate", "said"), [
    ("{name: a, query: up, max: 1, baseline: {maxRatio: 2}}",
     "3:5: a mapping is not a gate with exactly one of max, min or baseline ($.gates[0])"),
    ("{name: a, query: up, baseline: {ratio: 2}}",
     "3:44: unknown field 'ratio' ($.gates[0].baseline.ratio)"),
    ("{name: a, query: up, max: 1, summary: median}",
     "3:43: 'median' is not one of: mean, max, p95 (did you mean mean?) ($.gates[0].summary)"),
])
def test_a_gate_the_schema_refuses_is_located(gate: str, said: str, tmp_path: Path) -> None:
    path = tmp_path / ".tfpolicy.yaml"
    path.write_text(f"policies: [takeover-25]\ngates:\n  - {gate}\n", encoding="utf-8")
    with pytest.raises(TfpolicyError) as refused:
        parse_config(path.read_bytes(), path)
    assert str(refused.value) == f"{path}:{said}"


def test_prometheus_is_an_http_url(tmp_path: Path) -> None:
    path = tmp_path / ".tfpolicy.yaml"
    path.write_text("policies: [takeover-25]\nprometheus: file:///etc/passwd\n", encoding="utf-8")
    with pytest.raises(TfpolicyError, match=r":2:13: .*\(\$\.prometheus\)$"):
        parse_config(path.read_bytes(), path)
    path.write_text("policies: [takeover-25]\nprometheus: http://prom:9090\nbuiltinGates: "
                    "{restarts: false}\n", encoding="utf-8")
    gates = parse_config(path.read_bytes(), path).gates
    assert gates.prometheus == "http://prom:9090" and gates.builtin == ("xidErrors", "vramLimit")


def test_vram_at_the_limit_of_preallocating_pods_stops() -> None:
    """Two vLLM pods under a 16 GiB vram-limit each on one card: 32,000 MiB in use is at
    98 % of their 32,768; a pod that does not pre-allocate keeps the card unjudged."""
    from tfpolicy.gates.builtin import vram_limit

    card = "gpu-0"
    pods = (Pod("ns", "a", True, (card,), vram_limit=16384, preallocates=True),
            Pod("ns", "b", True, (card,), vram_limit=16384, preallocates=True))
    subject = Subject("Deployment/ns/app", "ns", pods)
    used = [Series({"UUID": "GPU-0"}, ((1000, 31000.0), (1030, 32200.0)))]
    full = vram_limit(subject, [subject], used)
    assert full is not None and full.outcome is Outcome.FAIL
    assert full.message == ("fails: at the limit, the limiter refuses allocations: gpu-0: "
                            "32200 MiB used of 32768 MiB limit")
    mixed = Subject("Deployment/ns/app", "ns", (pods[0], Pod("ns", "c", True, (card,))))
    result = vram_limit(mixed, [mixed], used)
    assert result is not None and result.outcome is Outcome.PASS
    assert vram_limit(Subject("Deployment/ns/x", "ns", (Pod("ns", "d", True, (card,)),)),
                      [], used) is None


def test_an_answer_nested_too_deep_to_show_is_one_line_refused() -> None:
    """The gates read an answer as recommend does (one envelope check): warnings nested
    deeper than repr goes are refused in one line, not a crash."""
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.gates import series_of

    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    answer = {"status": "success", "warnings": deep, "data": {"resultType": "matrix",
                                                             "result": []}}
    with pytest.raises(TfpolicyError, match="nested too deep to show"):
        series_of(answer, "gate query q")
