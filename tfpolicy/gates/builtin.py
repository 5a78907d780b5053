"""The built-in gates, on by default where their data exists (docs/gates.md, "Built-in
gates"); ``builtinGates: {xidErrors: false, …}`` in ``.tfpolicy.yaml`` switches one off.

- ``xidErrors``: dcgm-exporter's ``DCGM_FI_DEV_XID_ERRORS`` (the last XID error's code,
  0 when none) on the GPUs serving the workload's TensorFusion pods, matched by the
  series' ``UUID`` label to the pods' ``tensor-fusion.ai/gpu-ids`` (the operator names a
  GPU object by its lower-cased UUID). Any non-zero sample in the window stops.
- ``restarts``: a TensorFusion pod whose containers restarted, or were OOMKilled, since it
  was made (the snapshot's ``restartCount``, ``lastState.terminated.reason``): the pods
  are made by the rung, so these are restarts since the rung. Under a ``vram-limit`` it
  names the limit, and whether it is the one the step's policy gives, with what to change.
- ``vramLimit``: the GPU memory in use (``DCGM_FI_DEV_FB_USED``, MiB) at 98 % or more of
  the ``vram-limit`` of the TensorFusion pods on a GPU, when every one of them runs a
  framework that reserves its pool up front: the limiter refuses its allocations.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfpolicy.gates.answers import Series
from tfpolicy.gates.records import GateResult, Outcome, Pod, Query, Subject, Window
from tfpolicy.records import replace

XID = "DCGM_FI_DEV_XID_ERRORS"
FB_USED = "DCGM_FI_DEV_FB_USED"
AT_LIMIT = 0.98


def builtin_query(metric: str, window: Window) -> Query:
    return Query(f"max by (UUID) (max_over_time({metric}[{window.step}s]))", window)


def restarts(subject: Subject) -> GateResult:
    pods = [p for p in subject.side(True) if p.restarts or p.last_exit == "OOMKilled"]
    total = sum(p.restarts for p in subject.side(True))
    base = GateResult("restarts", subject.workload, Outcome.PASS, "", "= 0",
                      tensor_fusion=float(total), baseline_kind="none: from the snapshot",
                      tf_pods=tuple(f"{p.namespace}/{p.name}" for p in subject.side(True)),
                      builtin=True)
    if not pods:
        return replace(base, message="holds: no TensorFusion pod restarted")
    said = "; ".join(f"{p.namespace}/{p.name}: {p.restarts} restarts"
                     + (f", last {p.last_exit}" if p.last_exit else "") + _under_limit(p)
                     for p in pods)
    return replace(base, outcome=Outcome.FAIL, message=f"fails: {said}")


def _under_limit(pod: Pod) -> str:
    """The vram-limit a restarted pod runs under, and whose it is: the limiter refuses the
    allocations past it, a framework that reserves its pool up front fails at start."""
    limit, policy = pod.vram_limit or pod.policy_vram_limit, pod.policy_vram_limit
    if not limit:
        return ""
    whose = ("" if not policy else " (the policy's)" if limit == policy
             else f" (the policy gives {mib_said(policy)})")
    lower = ("lower the framework's pre-allocation"
             + (f" ({pod.preallocation})" if pod.preallocation else ""))
    hint = (f"raise the limit or {lower}" if pod.last_exit == "OOMKilled" else
            f"if it ran out of GPU memory, raise the limit or {lower}")
    return f", under vram-limit {mib_said(limit)}{whose}; {hint}"


def mib_said(mib: int) -> str:
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def xid_errors(subject: Subject, series: Sequence[Series]) -> GateResult:
    gpus = {g: p for p in subject.side(True) for g in p.gpus}
    seen = [(s.label("UUID").lower(), max(v for _, v in s.points)) for s in series
            if s.label("UUID").lower() in gpus and s.points]
    base = GateResult("xid-errors", subject.workload, Outcome.PASS, "", "= 0",
                      baseline_kind="none: an absolute bound", builtin=True,
                      tf_pods=tuple(sorted({f"{p.namespace}/{p.name}" for p in gpus.values()})),
                      samples=(sum(len(s.points) for s in series
                                   if s.label("UUID").lower() in gpus), 0))
    if not seen:
        return replace(base, measured=False, message=f"not measured: no {XID} series for "
                       "the GPUs of its TensorFusion pods")
    worst = max(value for _, value in seen)
    bad = sorted(f"{gpu} (XID {value:g}, pod {gpus[gpu].name})" for gpu, value in seen if value)
    if not bad:
        return replace(base, tensor_fusion=worst, message="holds: no XID error on its GPUs")
    return replace(base, outcome=Outcome.FAIL, tensor_fusion=worst,
                        message=f"fails: XID errors on {', '.join(bad)}")


def vram_limit(subject: Subject, every: Sequence[Subject],
               series: Sequence[Series]) -> GateResult | None:
    """None when none of its TensorFusion pods pre-allocates under a vram-limit."""
    mine = [p for p in subject.side(True) if p.preallocates and p.vram_limit]
    if not mine:
        return None
    on_gpu = {g: [p for s in every for p in s.side(True) if g in p.gpus]
              for p in mine for g in p.gpus}
    used = {s.label("UUID").lower(): max(v for _, v in s.points) for s in series if s.points}
    base = GateResult("vram-limit", subject.workload, Outcome.PASS, "", f"< {AT_LIMIT:.0%} "
                      "of the vram-limit", baseline_kind="none: an absolute bound", builtin=True,
                      tf_pods=tuple(sorted(f"{p.namespace}/{p.name}" for p in mine)))
    full = []
    for gpu, pods in sorted(on_gpu.items()):
        limit = sum(p.vram_limit for p in pods)
        if gpu in used and all(p.preallocates and p.vram_limit for p in pods) \
                and used[gpu] >= AT_LIMIT * limit:
            full.append(f"{gpu}: {used[gpu]:.0f} MiB used of {limit} MiB limit")
    measured = [g for g in on_gpu if g in used]
    if not measured:
        return replace(base, measured=False,
                       message=f"not measured: no {FB_USED} series for its GPUs")
    if full:
        return replace(base, outcome=Outcome.FAIL, message="fails: at the limit, the limiter "
                            f"refuses allocations: {'; '.join(full)}")
    return replace(base, message="holds: below the vram-limit on every GPU")
