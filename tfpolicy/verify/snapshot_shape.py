"""The types of the snapshot fields verify and promote read, checked when the snapshot is
read so that a wrongly typed field (a container state that is not a mapping, a ``kind``
that is a list) is one located error, exit 2, never an internal error later.

kubectl prints every field below with the type the table gives (the Kubernetes API's,
and the TensorFusion CRDs' for GPU, GPUNode and GPUPool); a missing field or a null is
fine, as the readers take it for empty. ``*`` is every key of a mapping or every item
of a list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.shapes import LIST, MAP, SCALAR, TEXT, Path, fits, found, under

_CONTAINER: dict[Path, str] = {
    ("name",): TEXT, ("resources",): MAP, ("resources", "limits"): MAP,
    ("resources", "requests"): MAP, ("resources", "limits", "*"): SCALAR,
    ("resources", "requests", "*"): SCALAR}
_STATUS: dict[Path, str] = {
    ("name",): TEXT, ("ready",): SCALAR, ("restartCount",): SCALAR, ("state",): MAP,
    ("lastState",): MAP, ("state", "*"): MAP, ("lastState", "*"): MAP,
    ("state", "*", "reason"): SCALAR, ("state", "*", "message"): SCALAR,
    ("lastState", "*", "reason"): SCALAR}
_CONDITION: dict[Path, str] = {
    ("type",): SCALAR, ("status",): SCALAR, ("reason",): SCALAR, ("message",): SCALAR,
    ("lastTransitionTime",): SCALAR}


COMMON: dict[Path, str] = {
    ("kind",): TEXT, ("apiVersion",): TEXT, ("metadata",): MAP, ("spec",): MAP,
    ("status",): MAP, ("metadata", "name"): TEXT, ("metadata", "namespace"): TEXT,
    ("metadata", "generateName"): TEXT, ("metadata", "uid"): TEXT,
    ("metadata", "creationTimestamp"): SCALAR, ("metadata", "deletionTimestamp"): SCALAR,
    ("metadata", "labels"): MAP, ("metadata", "labels", "*"): TEXT,
    ("metadata", "annotations"): MAP, ("metadata", "annotations", "*"): TEXT,
    ("metadata", "ownerReferences"): LIST, ("metadata", "ownerReferences", "*", "kind"): TEXT,
    ("metadata", "ownerReferences", "*", "name"): TEXT,
    ("metadata", "ownerReferences", "*", "controller"): SCALAR,
    ("status", "conditions"): LIST, **under(("status", "conditions", "*"), _CONDITION),
    ("status", "phase"): SCALAR,
}
BY_KIND: dict[str, dict[Path, str]] = {
    "Pod": {("spec", "containers"): LIST, ("spec", "initContainers"): LIST,
            **under(("spec", "containers", "*"), _CONTAINER),
            **under(("spec", "initContainers", "*"), _CONTAINER),
            ("spec", "nodeName"): SCALAR, ("status", "reason"): SCALAR,
            ("status", "containerStatuses"): LIST, ("status", "initContainerStatuses"): LIST,
            **under(("status", "containerStatuses", "*"), _STATUS),
            **under(("status", "initContainerStatuses", "*"), _STATUS)},
    "ReplicaSet": {("spec", "replicas"): SCALAR, ("status", "replicas"): SCALAR,
                   ("spec", "template"): MAP, ("spec", "template", "metadata"): MAP},
    "Event": {("involvedObject",): MAP, ("involvedObject", "*"): SCALAR,
              ("reason",): SCALAR, ("message",): SCALAR, ("type",): SCALAR,
              ("count",): SCALAR},
    "GPU": {("status", "nodeSelector"): MAP, ("status", "nodeSelector", "*"): TEXT,
            ("status", "capacity"): MAP, ("status", "available"): MAP,
            ("status", "capacity", "*"): SCALAR, ("status", "available", "*"): SCALAR,
            ("status", "allocatedPartitions"): MAP, ("status", "allocatedPartitions", "*"): MAP,
            ("status", "allocatedPartitions", "*", "podUid"): SCALAR,
            ("status", "allocatedPartitions", "*", "templateId"): SCALAR,
            ("status", "usedBy"): SCALAR, ("status", "isolationPolicy"): SCALAR,
            ("status", "model"): SCALAR, ("status", "gpuModel"): SCALAR},
    "GPUNode": {("status", "nodeInfo"): MAP, ("status", "nodeInfo", "*"): SCALAR},
    "GPUPool": {("spec", "capacityConfig"): MAP},
    "Rollout": {("status", "stableRS"): SCALAR, ("status", "currentPodHash"): SCALAR,
                ("status", "abort"): SCALAR},
}


def check_shape(item: Mapping[str, Any]) -> None:
    """Raise, naming the object and the field, when a field has another type."""
    table = {**COMMON, **BY_KIND.get(str(item.get("kind")), {})}
    for path, kind in table.items():
        for where, value in found(item, path):
            if value is not None and not fits(value, kind):
                raise TfpolicyError(f"{_who(item)}: {'.'.join(where)}: expected {kind}, "
                                    f"found {_found_as(value)}")


def check_kind(item: Mapping[str, Any]) -> None:
    """Before an object is sorted by kind: its ``kind`` is a string."""
    kind = item.get("kind")
    if kind is not None and not isinstance(kind, str):
        raise TfpolicyError(f"an object's kind: expected a string, found {_shown(kind)}")


def _found_as(value: Any) -> str:
    odd = [v for v in value if not isinstance(v, Mapping)] if isinstance(value, list) else []
    return f"a list holding {_shown(odd[0])}" if odd else _shown(value)


def _shown(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number"}
    return next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)


def _who(item: Mapping[str, Any]) -> str:
    meta = item.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return f"{item.get('kind')} {name}" if isinstance(name, str) else str(item.get("kind"))
