"""Generated application and GPU series, shaped as their exporters write them.

- vLLM's ``vllm:e2e_request_latency_seconds`` histogram and ``vllm:generation_tokens_total``
  counter (``vllm/v1/metrics/loggers.py``), with its ``model_name`` label;
- an HTTP server's ``http_requests_total{code, method, handler}`` counter (the
  prometheus_client convention), a 5xx series only once a 5xx was served;
- dcgm-exporter's ``DCGM_FI_DEV_XID_ERRORS`` gauge per GPU (``gpu``, ``UUID``, ``device``,
  ``modelName``, ``Hostname``), 0 until an XID error, then its code.

Application series carry ``namespace`` and ``pod`` as a Prometheus scraping pods through
Kubernetes service discovery labels them. Seeded: the same bytes every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

BUCKETS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
INTERVAL = 15
REQUESTS = 4.0  # per second, each pod


def at(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).timestamp())


@dataclass(frozen=True)
class PodLoad:
    namespace: str
    pod: str
    start: int  # Unix seconds of its first scrape
    stop: int  # and of its last
    latency: float  # seconds, the mean of an exponential spread around it
    tokens: float  # generated per second
    errors: float = 0.0  # the share of requests answered 5xx


@dataclass(frozen=True)
class GpuXid:
    uuid: str
    start: int
    stop: int
    xid: int = 0  # the XID code from ``since`` on (0: none)
    since: int = 0


def _scrapes(load: PodLoad) -> Iterator[int]:
    first = load.start - load.start % INTERVAL
    yield from range(first, load.stop + 1, INTERVAL)


def _labels(load: PodLoad, extra: str = "") -> str:
    return f'{extra}model_name="llama-3-8b",namespace="{load.namespace}",pod="{load.pod}"'


def _histogram(loads: list[PodLoad]) -> Iterator[str]:
    name = "vllm:e2e_request_latency_seconds"
    yield f"# TYPE {name} histogram\n"
    for load in loads:
        rng = random.Random(load.pod)
        counts, total, served = [0] * len(BUCKETS), 0.0, 0
        lines: dict[str, list[str]] = {}
        for t in _scrapes(load):
            for _ in range(int(REQUESTS * INTERVAL)):
                took = rng.expovariate(1 / load.latency)
                total, served = total + took, served + 1
                for i, edge in enumerate(BUCKETS):
                    counts[i] += took <= edge
            for i, edge in enumerate(BUCKETS):
                le = _labels(load, f'le="{edge}",')
                lines.setdefault(f"le{i}", []).append(f"{name}_bucket{{{le}}} {counts[i]} {t}\n")
            inf = _labels(load, 'le="+Inf",')
            lines.setdefault("inf", []).append(f"{name}_bucket{{{inf}}} {served} {t}\n")
            lines.setdefault("sum", []).append(f"{name}_sum{{{_labels(load)}}} {total:.3f} {t}\n")
            lines.setdefault("count", []).append(f"{name}_count{{{_labels(load)}}} {served} {t}\n")
        for series in lines.values():
            yield from series


def _tokens(loads: list[PodLoad]) -> Iterator[str]:
    name = "vllm:generation_tokens"
    yield f"# TYPE {name} counter\n"
    for load in loads:
        rng, total = random.Random(f"{load.pod}/tokens"), 0.0
        for t in _scrapes(load):
            total += max(load.tokens * INTERVAL * (1 + rng.gauss(0, 0.05)), 0.0)
            yield f"{name}_total{{{_labels(load)}}} {round(total)} {t}\n"


def _http(loads: list[PodLoad]) -> Iterator[str]:
    name = "http_requests"
    yield f"# TYPE {name} counter\n"
    for load in loads:
        for code, share in (("200", 1 - load.errors), ("500", load.errors)):
            if share <= 0:
                continue
            total = 0.0
            for t in _scrapes(load):
                total += REQUESTS * INTERVAL * share
                labels = f'code="{code}",handler="/v1/completions",method="POST",' \
                         f'namespace="{load.namespace}",pod="{load.pod}"'
                yield f"{name}_total{{{labels}}} {round(total)} {t}\n"


def _xid(gpus: list[GpuXid]) -> Iterator[str]:
    name = "DCGM_FI_DEV_XID_ERRORS"
    yield f"# TYPE {name} gauge\n"
    for index, gpu in enumerate(gpus):
        labels = (f'gpu="{index}",UUID="{gpu.uuid}",device="nvidia{index}",'
                  f'modelName="NVIDIA A100-SXM4-80GB",Hostname="gpu-node-a",'
                  f'DCGM_FI_DRIVER_VERSION="535.104.05"')
        for t in range(gpu.start - gpu.start % INTERVAL, gpu.stop + 1, INTERVAL):
            value = gpu.xid if gpu.xid and t >= gpu.since else 0
            yield f"{name}{{{labels}}} {value} {t}\n"


def openmetrics(loads: list[PodLoad], gpus: list[GpuXid]) -> Iterator[str]:
    """The OpenMetrics text ``promtool tsdb create-blocks-from openmetrics`` reads."""
    yield from _histogram(loads)
    yield from _tokens(loads)
    yield from _http(loads)
    yield from _xid(gpus)
    yield "# EOF\n"
