"""The range queries, evaluated by Prometheus so only aggregates cross the wire.

Activity and utilization: the per-step maximum (``max_over_time`` over one step),
like the 1-minute ``max`` windows TensorFusion's own TSDB keeps (docs/recommend.md,
"What it reads"), reduced per pod and model with ``max by`` across the pod's GPUs
(TensorFusion's values are per GPU, so the busiest GPU sizes them). Framebuffer: the
24-hour peak per pod, the VPA memory-style aggregation window of TensorFusion's
percentile recommender. Cache: the 24-hour peak share of its KV-cache pool that a
pre-allocating server reports in use (vLLM's and SGLang's own gauges). Generated and
prompted: the tokens per second a server counts, per step and pod, for the compute
cross-check (docs/recommend.md, "Cross-checks"). Only the manifests' namespaces are
asked for.
"""

from __future__ import annotations

import re

from tfpolicy.errors import TfpolicyError
from tfpolicy.records import Record

ACTIVITY = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
UTILIZATION = "DCGM_FI_DEV_GPU_UTIL"
FRAMEBUFFER = "DCGM_FI_DEV_FB_USED"
# The share (0-1) of the KV-cache pool in use: vLLM V0's and V1's gauges (vllm/engine/metrics.py,
# vllm/v1/metrics/loggers.py) and SGLang's (python/sglang/srt/metrics/collector.py).
CACHE = ("sglang:token_usage", "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc")
# Counters of tokens generated and of prompt tokens: vLLM's vllm:generation_tokens and
# vllm:prompt_tokens (vllm/v1/metrics/loggers.py; _total once exported), SGLang's
# (sglang v0.5.2 python/sglang/srt/metrics/collector.py:623-632), TGI's histograms
# tgi_request_generated_tokens and tgi_request_input_length, whose _sum counts them
# (huggingface/text-generation-inference router/src/server.rs:422, validation.rs:192).
GENERATED = ("sglang:generation_tokens_total", "tgi_request_generated_tokens_sum",
             "vllm:generation_tokens_total")
PROMPTED = ("sglang:prompt_tokens_total", "tgi_request_input_length_sum",
            "vllm:prompt_tokens_total")
DAY = 86400
_LABEL = re.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


class Query(Record):
    key: str  # "activity" | "utilization" | "framebuffer" | "cache" | "generated" | "prompted"
    expr: str
    start: float
    end: float
    step: int  # seconds


def queries(namespaces: list[str], end: float, window: int, step: int) -> list[Query]:
    """The queries covering (end - window, end]; the framebuffer one in whole days."""
    bad = [n for n in namespaces if not _LABEL.fullmatch(n)]
    if bad:  # a DNS label needs no escaping inside a PromQL regex string
        raise TfpolicyError(f"namespace {bad[0][:63]!r} is not a valid Kubernetes namespace")
    selector = '{namespace=~"' + "|".join(sorted(namespaces)) + '",pod!=""}'
    start = end - window + step
    days = max(window // DAY, 1)
    return [
        Query("activity", _max(ACTIVITY, selector, step), start, end, step),
        Query("utilization", _max(UTILIZATION, selector, step), start, end, step),
        Query("framebuffer", _max(FRAMEBUFFER, selector, DAY), end - (days - 1) * DAY, end, DAY),
        Query("cache", _cache(namespaces, DAY), end - (days - 1) * DAY, end, DAY),
        Query("generated", _rate(GENERATED, namespaces, step), start, end, step),
        Query("prompted", _rate(PROMPTED, namespaces, step), start, end, step),
    ]


def _named(names: tuple[str, ...], namespaces: list[str]) -> str:
    return '{__name__=~"' + "|".join(names) + '",namespace=~"' + "|".join(sorted(namespaces)) \
        + '",pod!=""}'


def _cache(namespaces: list[str], seconds: int) -> str:
    return f"max by (namespace, pod) (max_over_time({_named(CACHE, namespaces)}[{seconds}s]))"


def _rate(names: tuple[str, ...], namespaces: list[str], seconds: int) -> str:
    """Tokens per second over each step, summed over a pod's engines and series. A window
    of at least two minutes keeps two scrapes of a counter in it at the usual intervals."""
    window = max(seconds, 120)
    return f"sum by (namespace, pod) (rate({_named(names, namespaces)}[{window}s]))"


def _max(metric: str, selector: str, seconds: int) -> str:
    return f"max by (namespace, pod, modelName) (max_over_time({metric}{selector}[{seconds}s]))"


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": DAY, "w": 7 * DAY}
_DURATION = re.compile(r"([0-9]+)([smhdw])")


def seconds(text: str) -> int | None:
    """A Prometheus-style duration (``7d``, ``1h30m``, ``30s``) in seconds, or None."""
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(int(n) * _UNITS[u] for n, u in parts)
