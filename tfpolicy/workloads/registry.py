"""The templates of an object, per kind (docs/kinds.md, "Known kinds"), and how many pods.

The kinds themselves: :mod:`tfpolicy.workloads.kinds`; a pod whose parts live apart is
read through a :class:`tfpolicy.workloads.views.View`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path, format_path
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.records import Record
from tfpolicy.workloads import dra, profiles
from tfpolicy.workloads.dynamo import component_view, service_view
from tfpolicy.workloads.finder import shorthands
from tfpolicy.workloads.kinds import BUILTIN_KINDS as BUILTIN_KINDS
from tfpolicy.workloads.refusals import with_refusal
from tfpolicy.workloads.serving import Factor, rbg_template_users, serving_factors
from tfpolicy.workloads.shapes import Pattern, Report, ServiceShape, Sidecar, TemplateKind
from tfpolicy.workloads.shapes import parse_template_path as parse_template_path
from tfpolicy.workloads.views import View, expand, shape_view, with_added

MAX_REPLICAS = 2**31 - 1  # replicas and parallelism are int32 in the Kubernetes API


class ReplicasError(TfpolicyError):
    """A replica count the API server would refuse; ``path`` is where it is in the object,
    so a caller that knows the document can locate it. ``detail`` is the message without
    the workload's name, for a caller that names the workload itself."""

    def __init__(self, workload: str, detail: str, path: Path) -> None:
        super().__init__(f"{workload}: {detail}")
        self.detail = detail
        self.path = path


class NotCounted(TfpolicyError):
    """A kind whose pod count tfpolicy does not derive (it would be a guess): ``plan`` and
    ``admission`` leave its pods out and say so."""


__all__ = ["BUILTIN_KINDS", "MAX_REPLICAS", "NotCounted", "Registry", "ReplicasError",
           "TemplateKind", "View", "parse_template_path", "replicas_of"]


class _Entry(Record):
    paths: tuple[Pattern, ...] = ()
    shapes: tuple[Any, ...] = ()
    reports: tuple[Report, ...] = ()
    nested: tuple[Pattern, ...] = ()
    refused: tuple[Report, ...] = ()
    sidecars: tuple[Sidecar, ...] = ()


class Registry:
    """Kinds with pods: the built-ins plus the policies' ``podTemplates``."""

    __slots__ = ("_by_kind",)

    def __init__(self, extra: tuple[TemplateKind, ...] = ()) -> None:
        self._by_kind: dict[tuple[str, str], _Entry] = {}
        for entry in (*BUILTIN_KINDS, *extra):
            key = (entry.group, entry.kind)
            old = self._by_kind.get(key, _Entry())
            self._by_kind[key] = _Entry(
                tuple(dict.fromkeys(old.paths + entry.paths)), old.shapes + entry.shapes,
                old.reports + entry.reports, old.nested + entry.nested,
                old.refused + entry.refused, old.sidecars + entry.sidecars)

    def _entry(self, obj: Mapping[str, Any]) -> _Entry:
        api = obj.get("apiVersion")
        group = api.rpartition("/")[0] if isinstance(api, str) else ""
        return self._by_kind.get((group, str(obj.get("kind"))), _Entry())

    def knows(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj``'s kind is a built-in one or a policy's ``podTemplates``."""
        api = obj.get("apiVersion")
        group = api.rpartition("/")[0] if isinstance(api, str) else ""
        return (group, str(obj.get("kind"))) in self._by_kind

    def templates(self, obj: Mapping[str, Any]) -> list[Path]:
        """Concrete paths of the whole pod templates inside ``obj`` (mappings)."""
        found = (p for pattern in self._entry(obj).paths for p in expand(obj, pattern))
        return [p for p in dict.fromkeys(found) if isinstance(_get(obj, p), Mapping)]

    def views(self, obj: Mapping[str, Any]) -> list[View]:
        """Every pod shape of ``obj``: its whole templates, read in place (those the kind
        refuses carrying why), then the pods whose parts live apart, then those of the
        objects it embeds (a Katib trial)."""
        entry = self._entry(obj)
        found = [_whole(obj, p, entry.sidecars) for p in self.templates(obj)]
        for report in entry.refused:
            found += [View(p, _get(obj, p), refused=report.reason)
                      for p in expand(obj, report.path) if isinstance(_get(obj, p), Mapping)]
        for shape in entry.shapes:
            build = _service(shape) if isinstance(shape, ServiceShape) else _shaped(shape)
            built = (build(obj, a) for a in expand(obj, shape.anchor)
                     if isinstance(_get(obj, a), Mapping))
            found += [v for v in built if isinstance(v.template, Mapping)]
        found = [with_refusal(v) for v in found]
        for pattern in entry.nested:
            for at in expand(obj, pattern):
                inner = _get(obj, at)
                if isinstance(inner, Mapping):
                    found += [v.shifted(at) for v in self.views(inner)]
        return found

    def markers(self) -> tuple[str, ...]:
        """Kinds with a field to report: a document of one is read even when it names no
        GPU resource (MPIJob v1alpha1 asks for GPUs with a bare ``spec.gpus`` count); and
        the words of DRA claims and of GPU profiles, which name no resource either."""
        kinds = {r.marker or kind for (_, kind), entry in self._by_kind.items()
                 for r in entry.reports}
        return tuple(sorted({*kinds, *dra.MARKERS, *profiles.MARKERS}))

    def reports(self, obj: Mapping[str, Any], gpus: GpuResources) -> Iterator[tuple[Path, str]]:
        """Paths in ``obj`` with GPU resources no field of its kind can migrate, and why; a
        kind's own shorthand (Dynamo's ``gpu``) names a GPU there too."""
        extra = shorthands(obj)
        gpus = gpus.with_extra(extra) if extra else gpus
        for report in self._entry(obj).reports:
            for path in expand(obj, report.path):
                node = _get(obj, path)
                if report.named:
                    if isinstance(node, str) and re.fullmatch(report.named, node):
                        yield path, report.reason
                elif not report.missing:
                    if _mentions_gpu(node, gpus):
                        yield path, report.reason
                elif _made(node, report.when) and not any(
                        _gives(node, p, gpus) for p in report.missing):
                    yield path, report.reason


def _shaped(shape: Any) -> Callable[[Mapping[str, Any], Path], View]:
    return lambda obj, anchor: shape_view(obj, anchor, shape)


def _service(shape: ServiceShape) -> Callable[[Mapping[str, Any], Path], View]:
    """A Dynamo service's pod, or a v1beta1 component's whole template (when it has one)."""
    if not shape.template:
        return service_view
    return lambda obj, anchor: component_view(obj, anchor, shape.template)


def _get(node: Any, path: Path) -> Any:
    for item in path:
        node = node[item]
    return node


def _made(node: Any, when: Pattern | None) -> bool:
    """The controller makes the pod: no condition, or its boolean field is ``true``."""
    return when is None or any(_get(node, p) is True for p in expand(node, when))


def _gives(node: Any, field: Pattern, gpus: GpuResources) -> bool:
    """A field below ``node`` that gives the pod GPUs: resources naming one, or a non-empty
    value of another kind (a DRA claim list)."""
    values = [_get(node, p) for p in expand(node, field)]
    return any(_mentions_gpu(v, gpus, False) if isinstance(v, Mapping)
               else v not in (None, [], "", False, 0) for v in values)


def _mentions_gpu(node: Any, gpus: GpuResources, top: bool = True) -> bool:
    """A GPU resource name anywhere under ``node``, or in a patch written as text (Argo's
    ``podSpecPatch``, JSON or YAML), or a bare count (MPIJob ``spec.gpus``) as the field
    itself: a label's value deeper down (a patch's ``role: leader``) is no count."""
    if isinstance(node, Mapping):
        return any(k in gpus or _mentions_gpu(v, gpus, False) for k, v in node.items())
    if isinstance(node, list):
        return any(_mentions_gpu(v, gpus, False) for v in node)
    if isinstance(node, str) and (":" in node or "{" in node):
        return any(name in node for name in gpus.name_set)
    return top and node not in (None, 0, "0", False, "")


# Kinds whose pods tfpolicy does not count, and why (a count would be a guess).
_NOT_COUNTED = {
    "Experiment": "Katib runs parallelTrialCount trials of the trial kind at a time",
    "Workflow": "an Argo workflow runs its steps' pods as the DAG goes",
    "WorkflowTemplate": "an Argo workflow runs its steps' pods as the DAG goes",
    "ClusterWorkflowTemplate": "an Argo workflow runs its steps' pods as the DAG goes",
    "CronWorkflow": "an Argo workflow runs its steps' pods as the DAG goes",
    "Workspace": "KAITO sizes the inference workload from its resource and preset",
    "Service": "Knative scales revisions from traffic (autoscaling annotations)",
    "Configuration": "Knative scales revisions from traffic (autoscaling annotations)",
}
# Groups whose kind shares a name with one above but whose pods are counted (llmaz Service).
_COUNTED_GROUPS = ("inference.llmaz.io",)
# Kinds that are templates for other objects: they run no pod themselves.
_NO_PODS = ("TrainingRuntime", "ClusterTrainingRuntime", "LLMInferenceServiceConfig")


def replicas_of(obj: Mapping[str, Any], template: Path) -> int | None:
    """Pods behind a template: the product of its kind's counts (``replicas`` of its parent
    by default, ``parallelism`` for Jobs, JobSet ``replicas × parallelism``, LWS groups ×
    ``size``, InferenceService ``minReplicas``, ...).

    ``None`` when the count is decided by the cluster (DaemonSet: one per node);
    :class:`NotCounted` for a kind whose count tfpolicy does not derive. Absent or null is
    the API's default; a value the API server would refuse is a ``ReplicasError``.
    """
    kind = str(obj.get("kind"))
    if kind == "DaemonSet":
        return None
    if kind in _NOT_COUNTED and _api_group(obj) not in ("", "apps", "batch", *_COUNTED_GROUPS):
        raise NotCounted(f"{_name(obj)}: plan and admission do not count this kind's pods "
                         f"({_NOT_COUNTED[kind]})")
    if kind in _NO_PODS:
        return 0
    if kind == "RoleBasedGroup" and template[:2] == ("spec", "roleTemplates"):
        return sum(_product(obj, f) for f in rbg_template_users(obj, template))
    return _product(obj, _factors(obj, kind, template))


def _product(obj: Mapping[str, Any], factors: list[Factor]) -> int:
    total = 1
    for path, default, minus in factors:
        total *= max(_read(obj, path, default) - minus, 0)
    return total


def _factors(obj: Mapping[str, Any], kind: str, template: Path) -> list[Factor]:
    if kind == "Server" and _api_group(obj) == "mlops.seldon.io":  # ScalingSpec.replicas
        return [(("spec", "replicas"), 1, 0)]
    if kind == "Pod" or not template:
        return []
    parent = template[:-1]
    if kind == "LeaderWorkerSet" or (kind == "Service" and _api_group(obj) == "inference.llmaz.io"):
        # spec.replicas groups of `size` pods, one the leader (llmaz: the same shape)
        return _lws(obj, template)
    if kind == "JobSet":  # each replicated job: replicas Jobs of parallelism pods
        return [((*template[:-3], "replicas"), 1, 0), ((*parent, "parallelism"), 1, 0)]
    if kind == "InferenceService":  # ComponentExtensionSpec.minReplicas, default 1
        return [((*template, "minReplicas"), 1, 0)]
    if kind == "LLMInferenceService":  # WorkloadSpec.replicas of spec or spec.prefill
        return [((*template, "replicas"), 1, 0)]
    if kind == "StormService":  # spec.replicas role sets × role replicas × podGroupSize
        return [(("spec", "replicas"), 1, 0), ((*parent, "replicas"), 1, 0),
                ((*parent, "podGroupSize"), 1, 0)]
    serving = serving_factors(obj, kind, template)
    if serving is not None:
        return serving
    if kind == "RayClusterFleet":  # spec.replicas copies of the cluster
        return [(("spec", "replicas"), 1, 0), *_ray_group(parent)]
    if kind in ("RayCluster", "RayJob", "RayService"):
        return _ray_group(parent)
    if kind in ("Job", "CronJob") and _api_group(obj) != "batch.volcano.sh":
        return [((*parent, "parallelism"), 1, 0)]
    return [((*parent, "replicas"), 1, 0)]


def _lws(obj: Mapping[str, Any], template: Path) -> list[Factor]:
    """Without a leaderTemplate the leader is a worker too (kubernetes-sigs/lws/pkg/controllers/
    leaderworkerset_controller.go:777-781@060ab4da17ee): workerTemplate is all `size` pods."""
    groups: list[Factor] = [(("spec", "replicas"), 1, 0)]
    if template[-1] != "workerTemplate":
        return groups
    leader = _get_or_none(obj, (*template[:-1], "leaderTemplate")) is not None
    return [*groups, ((*template[:-1], "size"), 1, 1 if leader else 0)]


def _ray_group(group: Path) -> list[Factor]:
    """KubeRay runs a worker group's replicas × numOfHosts pods (ray-project/kuberay/
    ray-operator/controllers/ray/utils/util.go:389-406@feeaf72facab); a head, one."""
    hosts = [((*group, "numOfHosts"), 1, 0)] if "workerGroupSpecs" in group else []
    return [((*group, "replicas"), 1, 0), *hosts]


def _read(obj: Mapping[str, Any], path: Path, default: int) -> int:
    parent = _get_or_none(obj, path[:-1])
    value = parent.get(path[-1]) if isinstance(parent, Mapping) else None
    count = default if value is None else _count(value)
    if count is None:
        detail = (f"{format_path(path)} {_shown(value)} is not a replica count "
                  f"(Kubernetes takes an integer from 0 to {MAX_REPLICAS})")
        raise ReplicasError(_name(obj), detail, path)
    return count


def _get_or_none(node: Any, path: Path) -> Any:
    """The value at ``path``, ``None`` where a step is missing (a path without ``*``
    expands to itself or to nothing)."""
    return _get(node, path) if any(True for _ in expand(node, path)) else None


def _api_group(obj: Mapping[str, Any]) -> str:
    api = obj.get("apiVersion")
    return api.rpartition("/")[0] if isinstance(api, str) else ""


def _name(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return f"{obj.get('kind')}/{name[:63] if isinstance(name, str) else ''}"


def _count(value: Any) -> int | None:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # YAML 3.0 reaches the API server as the JSON number 3
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_REPLICAS:
        return value
    return None


def _shown(value: Any) -> str:
    """A short excerpt of the value: an error never echoes a long field."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**32:
        return "(a number of more than 32 digits)"
    text = repr(value)
    return text if len(text) <= 34 else text[:33] + "…"


def _whole(obj: Mapping[str, Any], path: Path, sidecars: tuple[Sidecar, ...]) -> View:
    """The whole template at ``path``, read in place, or as a copy with the containers its
    controller adds when a sidecar's condition holds (``True`` itself: a boolean field)."""
    added = tuple(dict.fromkeys(
        s.name for s in sidecars if path in expand(obj, s.template)
        and any(_get(obj, w) is True for w in expand(obj, s.when))))
    template = _get(obj, path)
    return with_added(path, template, added) if added else View(path, template)
