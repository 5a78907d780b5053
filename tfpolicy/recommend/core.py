"""Measured usage → per-workload TensorFusion resources (pure; docs/recommend.md).

Per GPU workload: its pods' series (found by pod name, ``mapping``), compute
activity × the model's peak TFLOPS (``gputable``) as TFLOPS samples of weight
0.1, the framebuffer's 24-hour peaks as VRAM samples of weight 1.0, both
decayed with half-life = window / 2 (TensorFusion's half-life is half its
history period: docs/recommend.md, "The recommender"), then the percentile
recommender. Workloads with too little data, several or unknown GPU models, or no
series are left out with the reason. A workload whose server pre-allocates a
memory pool has its VRAM sized from its model instead (``pool``): its framebuffer
is the pool, not the need; its figures are cross-checked (``crosscheck``) and
left out when they contradict each other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal

from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.sizing import Given, sizes
from tfpolicy.gpus import table as gputable
from tfpolicy.recommend.crosscheck import ComputeReading
from tfpolicy.recommend.crosscheck import compute as compute_check
from tfpolicy.recommend.histogram import Sample, decayed
from tfpolicy.recommend.mapping import WorkloadId, map_pods, pattern
from tfpolicy.recommend.pool import Measured, PoolSizing, size, whole_card
from tfpolicy.recommend.recommender import MARGIN, Estimate, Pair, choose, estimate, rules
from tfpolicy.recommend.series import Series
from tfpolicy.records import Record, field

INITIAL_DELAY = 1800.0  # TensorFusion's initialDelayPeriod default, 30m: none before
MIB = 1 << 20


class Usage(Record):
    """The queries' series: activity a 0–1 ratio, utilization %, framebuffer MiB, tokens/s."""

    activity: list[Series]
    utilization: list[Series]
    framebuffer: list[Series]
    cache: list[Series] = field(default_factory=list)  # KV-cache share in use, 0–1
    generated: list[Series] = field(default_factory=list)  # tokens/s generated, per pod
    prompted: list[Series] = field(default_factory=list)  # prompt tokens/s, per pod


class Settings(Record):
    window: float  # seconds
    margin: float = MARGIN
    target: float | None = None  # --quantile: both target percentiles
    qos: str = "medium"
    min_samples: int = 60
    whole_card: float = 0.9


class GpuWorkload(Record):
    id: WorkloadId
    qos: str  # the template's tensor-fusion.ai/qos, "" when unset
    framework: Found | None = None  # a GPU container's pre-allocating server
    given: Given = field(default_factory=Given)  # the policy's modelWeights / workingMemory
    isolation: str = "soft"  # the template's tensor-fusion.ai/isolation


class Evidence(Record):
    model: str
    pods: int
    samples: int
    tflops: tuple[float, float, float]  # p50, p95, max of the samples
    vram_mib: tuple[float, float, float]


class Recommendation(Record):
    id: WorkloadId
    tflops: Pair
    vram: Pair  # bytes
    evidence: Evidence
    takeover: str = ""  # the reason when the peak is near a whole card
    pool: PoolSizing | None = None  # VRAM sized from the model: the framework's pool
    framework: Found | None = None
    notes: tuple[str, ...] = ()  # cross-checks and check's warnings: stderr and comments


class Result(Record):
    recommended: list[Recommendation]
    left_out: list[tuple[WorkloadId, str]]
    notes: list[str] = field(default_factory=list)


def recommend(workloads: list[GpuWorkload], usage: Usage, settings: Settings) -> Result:
    pods = {(s.namespace, s.pod) for s in (*usage.activity, *usage.utilization, *usage.framebuffer)}
    mapping = map_pods(pods, [w.id for w in workloads])
    notes = [f"pod {ns}/{pod} fits several workloads ({', '.join(map(str, fits))}): not used"
             for (ns, pod), fits in sorted(mapping.ambiguous.items())]
    grouped = _by_workload(usage, mapping.owners)
    recommended, left_out = [], []
    for workload in sorted(workloads, key=lambda w: w.id):
        outcome = _one(workload, grouped.get(workload.id, _Mine()), settings)
        if isinstance(outcome, str):
            left_out.append((workload.id, outcome))
        else:
            recommended.append(outcome)
            notes += [f"{workload.id}: {note}" for note in outcome.notes]
    return Result(recommended, left_out, notes)


class _Mine(Record):
    activity: dict[str, list[Series]] = field(default_factory=dict)  # pod -> series
    utilization: dict[str, list[Series]] = field(default_factory=dict)
    framebuffer: list[Series] = field(default_factory=list)
    cache: list[Series] = field(default_factory=list)
    generated: list[Series] = field(default_factory=list)
    prompted: list[Series] = field(default_factory=list)


def _by_workload(usage: Usage, owners: dict[tuple[str, str], WorkloadId]) -> dict[
        WorkloadId, _Mine]:
    grouped: dict[WorkloadId, _Mine] = {}
    for kind, listed in (("a", usage.activity), ("u", usage.utilization),
                         ("f", usage.framebuffer), ("c", usage.cache),
                         ("g", usage.generated), ("p", usage.prompted)):
        for series in listed:
            owner = owners.get((series.namespace, series.pod))
            if owner is None:
                continue
            mine = grouped.setdefault(owner, _Mine())
            if kind in "fcgp":
                {"f": mine.framebuffer, "c": mine.cache, "g": mine.generated,
                 "p": mine.prompted}[kind].append(series)
            else:
                target = mine.activity if kind == "a" else mine.utilization
                target.setdefault(series.pod, []).append(series)
    return grouped


def _activity(mine: _Mine) -> list[Series]:
    """Per pod: profiling activity where present, else GPU utilization as a ratio."""
    chosen = [s for pod in sorted(mine.activity) for s in mine.activity[pod]]
    for pod in sorted(set(mine.utilization) - set(mine.activity)):
        chosen += [Series(s.namespace, s.pod, s.model, tuple((t, v / 100) for t, v in s.points))
                   for s in mine.utilization[pod]]
    return chosen


def _one(workload: GpuWorkload, mine: _Mine, settings: Settings) -> Recommendation | str:
    if pattern(workload.id) is None:
        return f"the pods of a {workload.id.kind} cannot be told by name (not mapped)"
    activity = _activity(mine)
    points = [p for s in activity for p in s.points]
    if not points:
        return "no GPU activity series in the window (no pod of it ran, or no mapping)"
    models = sorted({s.model for s in (*activity, *mine.framebuffer)})
    if models == [""] or len(models) > 1:
        return ("series without a modelName label" if "" in models
                else f"runs on several GPU models ({', '.join(models)}): size each apart")
    info = gputable.lookup(models[0])
    if info is None:
        return f"GPU model {models[0]!r} is not in the GPU tables"
    span = max(t for t, _ in points) - min(t for t, _ in points)
    if len(points) < settings.min_samples or span < INITIAL_DELAY:
        return (f"too little data: {len(points)} samples over {_duration(span)} "
                f"(at least {settings.min_samples} over 30m)")
    fb = [p for s in mine.framebuffer for p in s.points]
    if not fb:
        return "no framebuffer (DCGM_FI_DEV_FB_USED) series in the window"
    cache = [v for s in mine.cache for _, v in s.points]
    return _recommendation(workload, info, activity, fb, max(cache, default=None), settings,
                           mine)


def _recommendation(workload: GpuWorkload, info: gputable.GpuInfo, activity: list[Series],
                    fb: list[tuple[float, float]], cache: float | None,
                    settings: Settings, mine: _Mine) -> Recommendation | str:
    peak = float(Decimal(info.fp16_tflops))
    tflops = [(t, v * peak) for s in activity for t, v in s.points]
    compute_rule, vram_rule = rules(settings.target)
    half_life = settings.window / 2
    compute = estimate(compute_rule, decayed(_samples(tflops, 0.1), half_life), settings.margin)
    vram = estimate(vram_rule, decayed(_samples([(t, v * MIB) for t, v in fb], 1.0), half_life),
                    settings.margin)
    qos = workload.qos or settings.qos
    evidence = Evidence(info.full_name, len({s.pod for s in activity}), len(tflops),
                        _summary([v for _, v in tflops]), _summary([v for _, v in fb]))
    found = workload.framework
    if found is None:
        return Recommendation(workload.id, choose(compute_rule, compute, qos, None),
                              choose(vram_rule, vram, qos, None), evidence,
                              _near_card(compute, vram, info, peak, settings.whole_card))
    measured = Measured(max(v for _, v in fb), info.vram_mib, cache, workload.isolation)
    sized = size(found, workload.given, measured, settings.margin)
    if isinstance(sized, str):
        return sized
    checked = _compute_check(found, workload, activity, mine, peak)
    if checked.refused:
        return checked.refused
    modelled = Estimate(sized.limit, sized.limit, sized.limit)  # the pool is taken at start
    takeover = _near_card(compute, modelled, info, peak, settings.whole_card)
    if takeover:
        sized = whole_card(sized)
    return Recommendation(workload.id, choose(compute_rule, compute, qos, None),
                          Pair(sized.limit, sized.limit), evidence, takeover,
                          sized, found, (*sized.notes, *checked.lines))


def _compute_check(found: Found, workload: GpuWorkload, activity: list[Series], mine: _Mine,
                   peak: float) -> ComputeReading:
    """The token rates against the mean TFLOPS, over the pods that export both."""
    pods = {s.pod for s in mine.generated} & {s.pod for s in activity}
    if not pods:
        return ComputeReading()
    own = sizes(found, workload.given)
    measured = _mean([v * peak for s in activity if s.pod in pods for _, v in s.points])
    generated = _mean([v for s in mine.generated if s.pod in pods for _, v in s.points])
    prompted = _mean([v for s in mine.prompted if s.pod in pods for _, v in s.points])
    return compute_check(own.active, own.parallel, generated, prompted, measured or 0.0, peak)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _samples(points: Iterable[tuple[float, float]], weight: float) -> list[Sample]:
    return [Sample(t, v, weight) for t, v in points]


def _near_card(compute: Estimate, vram: Estimate, info: gputable.GpuInfo, peak: float,
               whole: float) -> str:
    """Why the workload should keep a whole card, or "" (its upper estimate is near one)."""
    if compute.upper >= whole * peak:
        return f"TFLOPS upper estimate {compute.upper} ≥ {whole:.0%} of the card's {peak:g}"
    card = info.vram_mib
    if card is not None and vram.upper >= whole * card * MIB:
        return f"VRAM upper estimate {vram.upper // MIB}Mi ≥ {whole:.0%} of the card's {card}Mi"
    return ""


def _summary(values: list[float]) -> tuple[float, float, float]:
    """Nearest-rank p50 and p95, and the maximum, of the unweighted samples."""
    ordered = sorted(values)
    rank = [ordered[max(math.ceil(p * len(ordered)) - 1, 0)] for p in (0.5, 0.95)]
    return rank[0], rank[1], ordered[-1]


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"
