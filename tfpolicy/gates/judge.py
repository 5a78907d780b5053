"""One user gate for one workload: its TensorFusion pods against its bound (docs/gates.md).

An absolute bound (``max``, ``min``) holds for every TensorFusion pod, the worst pod is
shown. A ratio bound (``baseline: {maxRatio|minRatio}``) compares the mean of the
TensorFusion pods' summaries with the mean of the baseline pods': the workload's native
pods in the same window while any run; otherwise (the last rung, or a workload with no
native pod left) its pods in a window of the same length before the rung began, said as
a time-shifted baseline. Too few samples on a side, or no series at all, is a wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from tfpolicy.gates.answers import Series
from tfpolicy.gates.records import GateResult, Outcome, Subject, Window
from tfpolicy.gates.spec import Gate
from tfpolicy.gates.summary import PodSamples, count, curve, mean, per_pod, samples_of
from tfpolicy.records import replace

NATIVE = "native pods, same window"


def judge_gate(gate: Gate, subject: Subject, window: Window, now: Sequence[Series],
               earlier: Sequence[Series] | None) -> GateResult:
    """``now``: the answer over ``window``; ``earlier``: over the time-shifted window (None
    when the gate needs none: an absolute bound, or native pods running)."""
    tf_names = [p.name for p in subject.side(True)]
    tf = samples_of(now, subject.namespace, tf_names, window)
    base, kind, base_window = _baseline(gate, subject, window, now, earlier)
    result = GateResult(gate.name, subject.workload, Outcome.PASS, "", gate.bound.shown(),
                        baseline_kind=kind, tf_pods=tuple(sorted(tf)),
                        baseline_pods=tuple(sorted(base)), samples=(count(tf), count(base)),
                        tf_series=curve(tf, window), baseline_series=curve(base, base_window))
    if not tf and not base:
        return replace(result, outcome=Outcome.WAIT, message=(
            f"the query returned no series for the pods of {subject.workload}"))
    short = _too_few(gate, tf, base)
    if short:
        return replace(result, outcome=Outcome.WAIT, message=short)
    return _decide(gate, result, tf, base)


def _baseline(gate: Gate, subject: Subject, window: Window, now: Sequence[Series],
              earlier: Sequence[Series] | None) -> tuple[PodSamples, str, Window]:
    natives = [p.name for p in subject.side(False)]
    if natives:
        return samples_of(now, subject.namespace, natives, window), NATIVE, window
    if not gate.bound.relative or earlier is None:
        return {}, "none: an absolute bound" if not gate.bound.relative else "none", window
    shifted = window.before(subject.started)
    pods = sorted({s.label("pod") for s in earlier if subject.earlier(s.label("pod"))})
    return (samples_of(earlier, subject.namespace, pods, shifted),
            f"time-shifted: the workload's pods {_iso(shifted.start)} to {_iso(shifted.end)}, "
            "before the rung", shifted)


def _too_few(gate: Gate, tf: PodSamples, base: PodSamples) -> str:
    need = gate.min_samples
    sides = [("TensorFusion", count(tf))]
    if gate.bound.relative:
        sides.append(("baseline", count(base)))
    short = [f"{side} pods {found}" for side, found in sides if found < need]
    if not short:
        return ""
    return f"too few samples: {need} needed on each side, found {', '.join(short)}"


def _decide(gate: Gate, result: GateResult, tf: PodSamples, base: PodSamples) -> GateResult:
    bound, tf_values = gate.bound, per_pod(tf, gate.summary)
    base_value = mean(per_pod(base, gate.summary).values()) if base else None
    if bound.relative:
        assert base_value is not None
        value, limit = mean(tf_values.values()), bound.value * base_value
        pods = sorted(tf_values)
    else:
        worst = (max if bound.upper else min)(tf_values, key=lambda p: (tf_values[p], p))
        value, limit, pods = tf_values[worst], bound.value, [worst]
    failed = value > limit if bound.upper else value < limit
    shown = _said(gate, value, base_value, limit, pods, result.baseline_kind)
    return replace(result, outcome=Outcome.FAIL if failed else Outcome.PASS,
                   tensor_fusion=value, baseline=base_value,
                   message=("fails: " if failed else "holds: ") + shown)


def _said(gate: Gate, value: float, base: float | None, limit: float, pods: list[str],
          kind: str) -> str:
    sign = "<=" if gate.bound.upper else ">="
    text = f"TensorFusion {gate.summary} {value:.4g} (pods {', '.join(pods)})"
    if gate.bound.relative:
        assert base is not None
        return (f"{text}, baseline {base:.4g} ({kind}); bound {sign} {gate.bound.value:g} x "
                f"{base:.4g} = {limit:.4g}")
    return f"{text}; bound {sign} {limit:g}"


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
