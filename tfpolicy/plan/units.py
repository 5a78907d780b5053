"""The GPU workloads of the manifests, one unit per pod template (DESIGN §1 "Pod templates").

A unit knows its owner (kind, namespace, name), where its template sits in
its document, how many pods it runs and how its controller rolls them
(`spec.strategy` / `spec.updateStrategy`). A DaemonSet runs one pod per
node of the inventory; per-node pinning is not simulated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfpolicy.admission.placeholders import refuse_placeholders
from tfpolicy.edits import Path, get_path
from tfpolicy.engine import objects
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpu import GpuResources
from tfpolicy.scheduler import Strategy, StrategyType, default_strategy
from tfpolicy.workloads import NotCounted, Registry, replicas_of

_GPUS = GpuResources()  # the vendors' names: a placeholder count is refused wherever it is
_INT_OR_PERCENT = re.compile(r"^[0-9]+%$")


@dataclass(frozen=True, slots=True)
class Document:
    """One parsed manifest document and where it came from."""

    file: str
    index: int
    data: Any


@dataclass(frozen=True, slots=True)
class Unit:
    key: str  # Kind/namespace/name[/template]
    kind: str
    namespace: str
    name: str
    doc: int  # index into the plan's documents
    path: Path  # of the template, from the document root
    replicas: int
    strategy: Strategy | None


def units_of(docs: list[Document], registry: Registry, namespace: str,
             daemon_replicas: int) -> list[Unit]:
    """Every whole pod template of every object, in document order. A kind whose pod count
    tfpolicy does not derive, and a pod whose parts live apart (an InferenceService, whose
    edits the steps cannot apply to a template), are left out: the engine says so in each
    step's warnings (``pods-not-counted``)."""
    found = []
    for number, doc in enumerate(docs):
        for base, obj in objects(doc.data):
            paths = registry.templates(obj)
            for path in paths:
                try:
                    found.append(_unit(obj, number, base, path, len(paths) > 1, namespace,
                                       daemon_replicas, doc))
                except NotCounted:
                    continue
    return found


def _unit(obj: Mapping[str, Any], doc: int, base: Path, path: Path, many: bool, namespace: str,
          daemon_replicas: int, source: Document) -> Unit:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    kind, name = str(obj.get("kind", "")), str(meta.get("name", ""))
    ns = str(meta.get("namespace") or namespace)
    key = f"{kind}/{ns}/{name}" + (f"/{template_label(path)}" if many else "")
    refuse_placeholders(get_path(obj, path), _GPUS, lambda p: base + path + p,
                        (source.file, source.index), f"{kind}/{name}")
    replicas = replicas_of(obj, path)
    return Unit(key, kind, ns, name, doc, base + path,
                daemon_replicas if replicas is None else replicas, strategy_of(obj, source.file))


def template_label(path: Path) -> str:
    """A short name for one of several templates: ``Worker``, ``workerGroupSpecs-0``."""
    parts = [p for p in path if p not in ("spec", "template")]
    if not parts:
        return "pod"
    if isinstance(parts[-1], str):
        return parts[-1]
    return "-".join(str(p) for p in parts[-2:])


def template_at(doc: Document, path: Path) -> dict[str, Any]:
    found = get_path(doc.data, path)
    assert isinstance(found, dict)
    return found


def strategy_of(obj: Mapping[str, Any], file: str) -> Strategy | None:
    """The rollout strategy the manifest asks for; None: the kind's default."""
    kind = str(obj.get("kind", ""))
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    raw = spec.get("updateStrategy" if kind in ("StatefulSet", "DaemonSet") else "strategy")
    if kind == "Deployment":
        if isinstance(raw, Mapping) and raw.get("type") == "Recreate":
            return Strategy(StrategyType.RECREATE)
        return _rolling(raw, default_strategy(kind), file)
    if kind == "Rollout":
        return _argo(raw, file)
    if kind == "DaemonSet":
        return _rolling(raw, default_strategy(kind), file)
    if kind == "StatefulSet":
        return _stateful(raw, file)
    return None


def _stateful(raw: Any, file: str) -> Strategy:
    """`updateStrategy`: OnDelete, or RollingUpdate with `partition` and `maxUnavailable`."""
    if isinstance(raw, Mapping) and raw.get("type") == "OnDelete":
        return Strategy(StrategyType.ON_DELETE)
    rolling = raw.get("rollingUpdate") if isinstance(raw, Mapping) else None
    if not isinstance(rolling, Mapping):
        return default_strategy("StatefulSet")
    partition = rolling.get("partition", 0)
    if not isinstance(partition, int) or isinstance(partition, bool) or partition < 0:
        raise TfpolicyError(f"rollingUpdate partition {partition!r} is not a whole number",
                            file=file)
    return Strategy(StrategyType.ORDERED, 0,
                    _int_or_percent(rolling.get("maxUnavailable", 1), file), partition=partition)


def _argo(raw: Any, file: str) -> Strategy:
    """Argo Rollouts: `canary` (maxSurge/maxUnavailable 25 % by default, `setWeight` steps)
    or `blueGreen` (the whole new ReplicaSet next to the old one before the switch)."""
    raw = raw if isinstance(raw, Mapping) else {}
    if isinstance(raw.get("blueGreen"), Mapping):
        return Strategy(StrategyType.ROLLING, "100%", 0)
    canary = raw.get("canary") if isinstance(raw.get("canary"), Mapping) else {}
    assert isinstance(canary, Mapping)
    steps = canary.get("steps") if isinstance(canary.get("steps"), list) else []
    assert isinstance(steps, list)
    weights = tuple(int(s["setWeight"]) for s in steps if isinstance(s, Mapping)
                    and isinstance(s.get("setWeight"), int)
                    and not isinstance(s.get("setWeight"), bool) and 0 <= s["setWeight"] <= 100)
    return Strategy(StrategyType.ROLLING,
                    _int_or_percent(canary.get("maxSurge", "25%"), file),
                    _int_or_percent(canary.get("maxUnavailable", "25%"), file),
                    canary_weights=weights)


def _rolling(raw: Any, default: Strategy, file: str) -> Strategy:
    rolling = raw.get("rollingUpdate") if isinstance(raw, Mapping) else None
    if not isinstance(rolling, Mapping):
        return default
    return Strategy(default.type,
                    _int_or_percent(rolling.get("maxSurge", default.max_surge), file),
                    _int_or_percent(rolling.get("maxUnavailable", default.max_unavailable), file),
                    default.round_up_unavailable)


def _int_or_percent(value: Any, file: str) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and _INT_OR_PERCENT.match(value):
        return value
    raise TfpolicyError(f"rollingUpdate value {value!r} is not an int or a percentage",
                        file=file)
