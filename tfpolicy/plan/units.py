"""The GPU workloads of the manifests, one unit per pod shape (docs/kinds.md).

A unit knows its owner (kind, namespace, name), where its template sits in
its document, how many pods it runs and how its controller rolls them
(`spec.strategy` / `spec.updateStrategy`). A DaemonSet runs one pod per
node of the inventory; per-node pinning is not simulated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tfpolicy.admission.placeholders import refuse_placeholders
from tfpolicy.edits import Path, get_path
from tfpolicy.errors import TfpolicyError
from tfpolicy.findings import object_ref, shown_ref
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.records import Record
from tfpolicy.rewrite.engine import objects
from tfpolicy.scheduler import Strategy, StrategyType, default_strategy
from tfpolicy.workloads import NotCounted, Registry, View, replicas_of

_GPUS = GpuResources()  # the vendors' names: a placeholder count is refused wherever it is
_INT_OR_PERCENT = re.compile(r"^[0-9]+%$")


class Document(Record):
    """One parsed manifest document and where it came from."""

    file: str
    index: int
    data: Any


class Shaped(Record):
    """A pod whose parts live apart (an InferenceService component): the object's path in
    its document, which of the object's views it is, and that view (paths from the object)."""

    base: Path
    index: int
    view: View


class Unit(Record):
    key: str  # Kind/namespace/name[/template], as ``shown_ref`` names it
    kind: str
    namespace: str
    name: str
    doc: int  # index into the plan's documents
    path: Path  # of the template (a shape's anchor), from the document root
    replicas: int
    strategy: Strategy | None
    shaped: Shaped | None = None  # None: a whole pod template at ``path``
    generate_name: str = ""  # the prefix the API server names it by, when it has no name
    base: Path = ()  # the object's path in its document (``()``: the document is the object)


class LeftOut(Record):
    """A pod shape the plan does not simulate, and why (said in the start's warnings)."""

    key: str
    template: Any
    reason: str


def units_of(docs: list[Document], registry: Registry, namespace: str, daemon_replicas: int,
             left_out: list[LeftOut] | None = None) -> list[Unit]:
    """Every pod of every object, in document order: whole templates, and pods whose parts
    live apart, read through the view the engine builds. A kind whose pod count tfpolicy
    does not derive is left out, and so is a shape the engine refuses (its labels reach two
    pod specs); ``left_out`` receives them."""
    found, skipped = [], left_out if left_out is not None else []
    seen: dict[str, int] = {}
    for number, doc in enumerate(docs):
        for base, obj in objects(doc.data):
            owner, views = _shown_owner(obj, namespace, seen), registry.views(obj)
            for index, view in enumerate(views):
                key = owner + (f"/{template_label(view.path)}" if len(views) > 1 else "")
                if view.refused:
                    skipped.append(LeftOut(key, view.template, view.refused))
                    continue
                try:
                    found.append(_unit(obj, number, base, (index, view),
                                       (*_owner(obj, namespace), key), daemon_replicas, doc))
                except NotCounted as exc:
                    skipped.append(LeftOut(key, view.template, str(exc).partition(": ")[2]))
    return found


def _owner(obj: Mapping[str, Any], namespace: str) -> tuple[str, str, str]:
    """Kind, namespace and name."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    return (str(obj.get("kind", "")), str(meta.get("namespace") or namespace),
            str(meta.get("name") or ""))


def _shown_owner(obj: Mapping[str, Any], namespace: str, seen: dict[str, int]) -> str:
    """How reports name the object (``shown_ref``), never with an empty name segment."""
    return with_copy(shown_ref(obj, namespace), copy_of(obj, namespace, seen))


def copy_of(obj: Mapping[str, Any], namespace: str, seen: dict[str, int]) -> int:
    """Two runs named by one ``generateName`` are two workloads: the how-manieth object
    without a name that shows the same this is (``seen`` counts them); 1 for a named one."""
    if object_ref(obj).name:
        return 1
    shown = shown_ref(obj, namespace)
    seen[shown] = seen.get(shown, 0) + 1
    return seen[shown]


def with_copy(shown: str, copy: int) -> str:
    """``Job/default/train-* (generateName) #2`` for the second such object."""
    return shown if copy == 1 else f"{shown} #{copy}"


def _unit(obj: Mapping[str, Any], doc: int, base: Path, which: tuple[int, View],
          owner: tuple[str, str, str, str], daemon_replicas: int, source: Document) -> Unit:
    index, view = which
    kind, ns, name, key = owner
    refuse_placeholders(view.template, _GPUS, lambda p: base + (view.real(p) or view.path),
                        (source.file, source.index), f"{kind}/{object_ref(obj).shown_name}")
    replicas = replicas_of(obj, view.path)
    shaped = None if view.meta is None else Shaped(base, index, view)
    return Unit(key, kind, ns, name, doc, base + view.path,
                daemon_replicas if replicas is None else replicas,
                strategy_of(obj, source.file, view.path), shaped, object_ref(obj).generateName,
                base)


def template_label(path: Path) -> str:
    """A short name for one of several templates: ``Worker``, ``workerGroupSpecs-0``,
    ``pod`` and ``prefill`` for an LLMInferenceService's two workloads."""
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


def unit_template(docs: list[Document], unit: Unit) -> Mapping[str, Any]:
    """The unit's pod template as written: its view for a pod whose parts live apart."""
    if unit.shaped is not None:
        template: Mapping[str, Any] = unit.shaped.view.template
        return template
    return template_at(docs[unit.doc], unit.path)


# KServe runs a component (and an LLMInferenceService its workload) as a Deployment in
# raw mode, its `deploymentStrategy` the Deployment's strategy (kserve v1beta1
# ComponentExtensionSpec.DeploymentStrategy); Knative serving brings a revision up in full
# first, which a Deployment's default rolling update understates only in surge.
_AS_DEPLOYMENT = frozenset({"InferenceService", "LLMInferenceService"})


def strategy_of(obj: Mapping[str, Any], file: str, template: Path = ()) -> Strategy | None:
    """The rollout strategy the manifest asks for; None: the kind's default."""
    kind = str(obj.get("kind", ""))
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    if kind in _AS_DEPLOYMENT:
        return _deployment(_get_mapping(obj, template).get("deploymentStrategy"), file)
    raw = spec.get("updateStrategy" if kind in ("StatefulSet", "DaemonSet") else "strategy")
    if kind == "Deployment":
        return _deployment(raw, file)
    if kind == "Rollout":
        return _argo(raw, file)
    if kind == "DaemonSet":  # OnDelete as a StatefulSet's: a new pod only for a deleted one
        if isinstance(raw, Mapping) and raw.get("type") == "OnDelete":
            return Strategy(StrategyType.ON_DELETE)
        return _rolling(raw, default_strategy(kind), file)
    if kind == "StatefulSet":
        return _stateful(raw, file)
    return None


def _deployment(raw: Any, file: str) -> Strategy:
    if isinstance(raw, Mapping) and raw.get("type") == "Recreate":
        return Strategy(StrategyType.RECREATE)
    return _rolling(raw, default_strategy("Deployment"), file)


def _get_mapping(obj: Mapping[str, Any], path: Path) -> Mapping[str, Any]:
    node: Any = obj
    for item in path:
        node = node.get(item) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}


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
