"""Generated dcgm-exporter series, shaped like the real exporter's output.

Label set of dcgm-exporter 3.x with Kubernetes pod mapping (``gpu``, ``UUID``,
``device``, ``modelName``, ``Hostname``, ``DCGM_FI_DRIVER_VERSION``,
``container``, ``namespace``, ``pod``), one series per GPU, a 15 s or 30 s
scrape interval, a diurnal load curve, and restarts that change pod names.
Seeded, so every run writes the same bytes.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

END = 1_767_225_600  # 2026-01-01T00:00:00Z: a fixed end, so the data never moves
DAY = 86_400


@dataclass(frozen=True)
class Run:
    """One pod's life: its name and the seconds before END it started and stopped."""

    pod: str
    start: int
    stop: int = 0


@dataclass(frozen=True)
class Workload:
    namespace: str
    container: str
    model: str
    runs: tuple[Run, ...]
    activity: float  # mean engine activity, 0–1
    swing: float  # diurnal amplitude around the mean
    fb_mib: float  # mean framebuffer used
    gpus: int = 1
    interval: int = 30
    profiling: bool = True  # False: only DCGM_FI_DEV_GPU_UTIL, as on GPUs without profiling
    extra: dict[str, str] = field(default_factory=dict)
    cache: float = -1.0  # the peak share of a vLLM KV-cache pool in use; < 0: no such gauge
    served: str = ""  # the model vLLM serves (its gauge's model_name label)
    generated: float = -1.0  # mean tokens/s vLLM generates; < 0: no token counters
    prompted: float = 0.0  # mean prompt tokens/s, with ``generated``


def points(load: Workload, run: Run, gpu: int) -> Iterator[tuple[int, float, float]]:
    """(time, activity 0–1, framebuffer MiB) at every scrape of one GPU of one pod."""
    rng = random.Random(f"{run.pod}/{gpu}")
    first = END - run.start
    first -= first % load.interval
    for t in range(first, END - run.stop + 1, load.interval):
        phase = math.sin(2 * math.pi * ((t % DAY) / DAY - 0.25))  # peak at 12:00 UTC
        act = load.activity + load.swing * phase + rng.gauss(0, 0.03)
        fb = load.fb_mib * (1 + 0.05 * phase) + rng.gauss(0, load.fb_mib * 0.01)
        yield t, min(max(act, 0.0), 1.0), max(fb, 0.0)


def _labels(load: Workload, run: Run, gpu: int) -> str:
    labels = {"gpu": str(gpu), "UUID": f"GPU-{zlib.crc32(f'{run.pod}/{gpu}'.encode()):08x}",
              "device": f"nvidia{gpu}", "modelName": load.model, "Hostname": "gpu-node-1",
              "DCGM_FI_DRIVER_VERSION": "535.104.05", "container": load.container,
              "namespace": load.namespace, "pod": run.pod, **load.extra}
    return ",".join(f'{k}="{v}"' for k, v in labels.items() if v)


def openmetrics(loads: list[Workload]) -> Iterator[str]:
    """The OpenMetrics text ``promtool tsdb create-blocks-from openmetrics`` reads."""
    families = (("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 1), ("DCGM_FI_DEV_GPU_UTIL", 2),
                ("DCGM_FI_DEV_FB_USED", 3))
    for name, column in families:
        yield f"# TYPE {name} gauge\n"
        for load in loads:
            if column == 1 and not load.profiling:
                continue
            for run in load.runs:
                for gpu in range(load.gpus):
                    labels = _labels(load, run, gpu)
                    for t, act, fb in points(load, run, gpu):
                        value = (act, round(act * 100), round(fb))[column - 1]
                        yield f"{name}{{{labels}}} {value} {t}\n"
    yield from _cache_gauge([load for load in loads if load.cache >= 0])
    counted = [load for load in loads if load.generated >= 0]
    yield from _token_counter(counted, "vllm:generation_tokens", "generated")
    yield from _token_counter(counted, "vllm:prompt_tokens", "prompted")
    yield "# EOF\n"


def _cache_gauge(loads: list[Workload]) -> Iterator[str]:
    """vLLM's own ``vllm:kv_cache_usage_perc`` (a 0-1 share despite its name), as a
    Prometheus scraping the pod with Kubernetes service discovery labels it: per pod, not
    per GPU, highest at the diurnal peak."""
    if not loads:
        return
    name = "vllm:kv_cache_usage_perc"
    yield f"# TYPE {name} gauge\n"
    for load in loads:
        for run in load.runs:
            labels = (f'engine="0",model_name="{load.served}",namespace="{load.namespace}",'
                      f'pod="{run.pod}",container="{load.container}"')
            for t, _, _ in points(load, run, 0):
                phase = math.sin(2 * math.pi * ((t % DAY) / DAY - 0.25))
                yield f"{name}{{{labels}}} {round(load.cache * (0.6 + 0.4 * phase), 4)} {t}\n"


def _token_counter(loads: list[Workload], family: str, rate: str) -> Iterator[str]:
    """vLLM's token counters (``vllm:generation_tokens_total``, ``vllm:prompt_tokens_total``),
    per pod, counting at the workload's mean rate shaped by the day's load curve."""
    if not loads:
        return
    yield f"# TYPE {family} counter\n"
    for load in loads:
        mean = getattr(load, rate)
        for run in load.runs:
            labels = (f'engine="0",model_name="{load.served}",namespace="{load.namespace}",'
                      f'pod="{run.pod}",container="{load.container}"')
            total = 0.0
            for t, _, _ in points(load, run, 0):
                phase = math.sin(2 * math.pi * ((t % DAY) / DAY - 0.25))
                total += mean * (1 + 0.5 * phase) * load.interval
                yield f"{family}_total{{{labels}}} {round(total)} {t}\n"
