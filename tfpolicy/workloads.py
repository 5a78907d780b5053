"""Where pod templates live, per kind: an explicit registry (DESIGN §1 "Pod templates are found").

Paths use ``.`` between fields, ``*`` for any key of a mapping or item of a
list, and ``[*]``/``[N]`` for list items, so users can add their own kinds
in a policy's ``podTemplates``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tfpolicy.edits import Path, format_path
from tfpolicy.errors import TfpolicyError

ANY = "*"
_TOKEN = re.compile(r"\[(\*|[0-9]+)\]|([^.\[\]]+)")
MAX_REPLICAS = 2**31 - 1  # replicas and parallelism are int32 in the Kubernetes API


class ReplicasError(TfpolicyError):
    """A replica count the API server would refuse; ``path`` is where it is in the object,
    so a caller that knows the document can locate it. ``detail`` is the message without
    the workload's name, for a caller that names the workload itself."""

    def __init__(self, workload: str, detail: str, path: Path) -> None:
        super().__init__(f"{workload}: {detail}")
        self.detail = detail
        self.path = path


@dataclass(frozen=True, slots=True)
class TemplateKind:
    group: str  # "" = the core group
    kind: str
    paths: tuple[tuple[str | int, ...], ...]


def parse_template_path(text: str) -> tuple[str | int, ...]:
    """``spec.workers[*].template`` → ``("spec", "workers", "*", "template")``."""
    if not text:
        return ()
    out: list[str | int] = []
    for match in _TOKEN.finditer(text):
        index, name = match.groups()
        out.append(name if name is not None else (ANY if index == "*" else int(index)))
    return tuple(out)


def _kinds(group: str, kinds: str, *paths: str) -> list[TemplateKind]:
    parsed = tuple(parse_template_path(p) for p in paths)
    return [TemplateKind(group, kind, parsed) for kind in kinds.split()]


_RAY_GROUPS = ("headGroupSpec.template", "workerGroupSpecs[*].template")

BUILTIN_KINDS: tuple[TemplateKind, ...] = tuple(
    _kinds("apps", "Deployment StatefulSet DaemonSet ReplicaSet", "spec.template")
    + _kinds("extensions", "Deployment DaemonSet ReplicaSet", "spec.template")
    + _kinds("", "ReplicationController", "spec.template")
    + _kinds("", "PodTemplate", "template")
    + _kinds("", "Pod", "")
    + _kinds("batch", "Job", "spec.template")
    + _kinds("batch", "CronJob", "spec.jobTemplate.spec.template")
    + _kinds("argoproj.io", "Rollout", "spec.template")
    + _kinds("kubeflow.org", "PyTorchJob", "spec.pytorchReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "TFJob", "spec.tfReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "MPIJob", "spec.mpiReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "XGBoostJob", "spec.xgbReplicaSpecs.*.template")
    + _kinds("kubeflow.org", "PaddleJob", "spec.paddleReplicaSpecs.*.template")
    + _kinds("ray.io", "RayCluster", *(f"spec.{p}" for p in _RAY_GROUPS))
    + _kinds("ray.io", "RayJob", *(f"spec.rayClusterSpec.{p}" for p in _RAY_GROUPS))
    + _kinds("ray.io", "RayService", *(f"spec.rayClusterConfig.{p}" for p in _RAY_GROUPS))
    + _kinds("leaderworkerset.x-k8s.io", "LeaderWorkerSet",
             "spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate")
)


class Registry:
    """Kinds with pod templates: the built-ins plus the policies' ``podTemplates``."""

    __slots__ = ("_by_kind",)

    def __init__(self, extra: tuple[TemplateKind, ...] = ()) -> None:
        self._by_kind: dict[tuple[str, str], tuple[tuple[str | int, ...], ...]] = {}
        for entry in (*BUILTIN_KINDS, *extra):
            key = (entry.group, entry.kind)
            self._by_kind[key] = tuple(dict.fromkeys(self._by_kind.get(key, ()) + entry.paths))

    def templates(self, obj: Mapping[str, Any]) -> list[Path]:
        """Concrete paths of the pod templates inside ``obj`` (mappings with a ``spec``)."""
        api = obj.get("apiVersion")
        group = api.rpartition("/")[0] if isinstance(api, str) else ""
        patterns = self._by_kind.get((group, str(obj.get("kind"))), ())
        found = (p for pattern in patterns for p in _expand(obj, pattern, ()))
        return [p for p in dict.fromkeys(found) if isinstance(_get(obj, p), Mapping)]


def _expand(node: Any, pattern: tuple[str | int, ...], prefix: Path) -> Iterator[Path]:
    if not pattern:
        yield prefix
        return
    head, rest = pattern[0], pattern[1:]
    if head == ANY:
        keys: list[Any] = (sorted(node, key=str) if isinstance(node, Mapping)
                           else list(range(len(node))) if isinstance(node, list) else [])
        for key in keys:
            yield from _expand(node[key], rest, (*prefix, key))
    elif _has(node, head):
        yield from _expand(node[head], rest, (*prefix, head))


def _has(node: Any, key: str | int) -> bool:
    if isinstance(node, Mapping):
        return key in node
    return isinstance(node, list) and isinstance(key, int) and key < len(node)


def _get(node: Any, path: Path) -> Any:
    for item in path:
        node = node[item]
    return node


def replicas_of(obj: Mapping[str, Any], template: Path) -> int | None:
    """Replicas behind a template: its parent's ``replicas`` (``parallelism`` for Jobs).

    ``None`` when the count is decided by the cluster (DaemonSet: one per node).
    Absent or null is Kubernetes' default, 1; a value the API server would refuse
    is a ``ReplicasError``, never read as some other count.
    """
    kind = obj.get("kind")
    if kind == "DaemonSet":
        return None
    if kind == "Pod" or not template:
        return 1
    parent = _get(obj, template[:-1])
    key = "parallelism" if kind in ("Job", "CronJob") else "replicas"
    value = parent.get(key) if isinstance(parent, Mapping) else None
    count = 1 if value is None else _count(value)
    if count is None:
        path = (*template[:-1], key)
        detail = (f"{format_path(path)} {_shown(value)} is not a replica count "
                  f"(Kubernetes takes an integer from 0 to {MAX_REPLICAS})")
        raise ReplicasError(_name(obj), detail, path)
    return count


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
