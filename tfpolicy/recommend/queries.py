"""The three range queries, evaluated by Prometheus so only aggregates cross the wire.

Activity and utilization: the per-step maximum (``max_over_time`` over one step),
like the 1-minute ``max`` windows TensorFusion's own TSDB keeps (reference/
tensor-fusion.md §7.1), reduced per pod and model with ``max by`` across the
pod's GPUs (TensorFusion's values are per GPU, so the busiest GPU sizes them).
Framebuffer: the 24-hour peak per pod, the VPA memory-style aggregation
window of §7.3. Cache: the 24-hour peak share of its KV-cache pool that a
pre-allocating server reports in use (vLLM's and SGLang's own gauges, issue 32).
Only the manifests' namespaces are asked for.
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
DAY = 86400
_LABEL = re.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


class Query(Record):
    key: str  # "activity" | "utilization" | "framebuffer" | "cache"
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
    ]


def _cache(namespaces: list[str], seconds: int) -> str:
    names = "|".join(CACHE)
    selector = '{__name__=~"' + names + '",namespace=~"' + "|".join(sorted(namespaces)) + \
        '",pod!=""}'
    return f"max by (namespace, pod) (max_over_time({selector}[{seconds}s]))"


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
