"""What ``.tfpolicy.yaml`` says about gates (docs/gates.md): the user's own PromQL gates, the
built-in ones switched on or off, and the Prometheus to ask.

The schema (``schemas/config.schema.json``) has checked the shape before ``gate_specs``
reads it; each gate keeps where it stands in the file, so that an error found later, a
metric no Prometheus knows, is located at the gate's query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfpolicy.records import Record

SUMMARIES = ("mean", "max", "p95")
BOUNDS = ("max", "min", "maxRatio", "minRatio")
MIN_SAMPLES = 10  # per side, when a gate names none: fewer is a wait, never a pass
BUILTIN = ("xidErrors", "restarts", "vramLimit")


class Bound(Record):
    """``max``/``min``: every TensorFusion pod's value; ``maxRatio``/``minRatio``: the
    TensorFusion pods' value against ``value`` times the baseline's."""

    kind: str  # one of BOUNDS
    value: float

    @property
    def relative(self) -> bool:
        return self.kind.endswith("Ratio")

    @property
    def upper(self) -> bool:
        return self.kind.startswith("max")

    def shown(self) -> str:
        sign = "<=" if self.upper else ">="
        return f"{sign} {self.value:g} x baseline" if self.relative else f"{sign} {self.value:g}"


class Gate(Record):
    name: str
    query: str
    bound: Bound
    summary: str = "mean"
    min_samples: int = MIN_SAMPLES
    workloads: tuple[str, ...] = ()  # globs over namespace/name; empty: every workload
    line: int = 0  # where the gate's query stands in the file (1-based; 0: unknown)
    column: int = 0


class GateConfig(Record):
    """The gates of one configuration, and the Prometheus it names."""

    gates: tuple[Gate, ...] = ()
    builtin: tuple[str, ...] = BUILTIN  # the built-in gates switched on
    prometheus: str | None = None

    @property
    def declared(self) -> bool:
        return bool(self.gates) or self.prometheus is not None


def gate_config(data: Mapping[str, Any], position: Any) -> GateConfig:
    """``data`` is the validated config; ``position(path)`` gives (line, column), 1-based."""
    raw = data.get("gates") or []
    gates = tuple(_gate(item, position(("gates", i, "query"))) for i, item in enumerate(raw))
    switches = data.get("builtinGates") or {}
    builtin = tuple(name for name in BUILTIN if switches.get(name, True))
    url = data.get("prometheus")
    return GateConfig(gates, builtin, str(url) if url is not None else None)


def _gate(item: Mapping[str, Any], where: tuple[int, int]) -> Gate:
    bound = _bound(item)
    return Gate(str(item["name"]), str(item["query"]), bound, str(item.get("summary", "mean")),
                int(item.get("minSamples", MIN_SAMPLES)),
                tuple(str(w) for w in item.get("workloads") or ()), *where)


def _bound(item: Mapping[str, Any]) -> Bound:
    if "baseline" in item:
        kind, value = next(iter(item["baseline"].items()))
        return Bound(str(kind), float(value))
    kind = "max" if "max" in item else "min"
    return Bound(kind, float(item[kind]))


def names_of(gates: Sequence[Gate]) -> list[str]:
    return [g.name for g in gates]
