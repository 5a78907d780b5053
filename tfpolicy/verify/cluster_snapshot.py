"""A cluster snapshot: what ``kubectl get pods,replicasets,gpus,gpunodes,gpupools -A -o yaml``
prints (plus events, and Argo Rollouts when given), sorted by kind.

kubectl wraps what it prints in a ``kind: List``; several files or several
documents are merged. Only the kinds below are read, anything else is
ignored, so a wider dump (``kubectl get all``) works too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfpolicy import gitops
from tfpolicy.admission.keys import PERCENT_REQUEST as _PERCENT_REQUEST
from tfpolicy.admission.keys import TFLOPS_REQUEST as _TFLOPS_REQUEST
from tfpolicy.admission.keys import VRAM_REQUEST as _VRAM_REQUEST
from tfpolicy.errors import TfpolicyError
from tfpolicy.inventory.fields import tflops_of, vram_of
from tfpolicy.records import Record, field
from tfpolicy.verify.clock import Clock, is_time, label, snapshot_clock
from tfpolicy.verify.snapshot_shape import check_kind, check_shape

KINDS = ("Pod", "ReplicaSet", "Event", "GPU", "GPUNode", "GPUPool", "Rollout", *gitops.KINDS)
_TF_GROUP = "tensor-fusion.ai/"
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")  # RFC 3339, to the second
_ARGO_GROUP = "argoproj.io/"


class Snapshot(Record):
    objects: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    def of(self, kind: str) -> tuple[Mapping[str, Any], ...]:
        return self.objects.get(kind, ())

    @property
    def operator_installed(self) -> bool:
        """The operator's CRDs answer: kubectl printed some GPUPool, GPUNode or GPU."""
        return any(self.of(kind) for kind in ("GPU", "GPUNode", "GPUPool"))

    def operator_objects(self) -> list[Mapping[str, Any]]:
        return [o for kind in ("GPUPool", "GPUNode", "GPU") for o in self.of(kind)]

    @property
    def latest(self) -> str:
        """When the snapshot was taken, by its own data (a file's: no wall clock)."""
        return self.clock().time

    def clock(self, wall: str = "") -> Clock:
        """The latest time its objects carry (creation, events, conditions, the operator's
        last sync), the outliers set aside (:mod:`tfpolicy.verify.clock`); ``wall``: the
        wall clock when the snapshot was just taken live."""
        witnesses = [(label(o), max(times)) for objs in self.objects.values() for o in objs
                     if (times := [t for t in _times(o) if is_time(t)])]
        return snapshot_clock(witnesses, wall)


def _times(value: Any) -> Iterator[str]:
    """Every RFC 3339 time in an object, cut to the second (``eventTime`` has microseconds)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _times(item)
    elif isinstance(value, list):
        for item in value:
            yield from _times(item)
    elif isinstance(value, str) and len(value) <= 40 and _TIME.match(value):
        yield value[:19] + "Z"


def snapshot_of(documents: list[tuple[str, Any]]) -> Snapshot:
    """``documents`` are (file, parsed document) pairs; a bad item is exit 2 at its file."""
    found: dict[str, list[Mapping[str, Any]]] = {kind: [] for kind in KINDS}
    seen: set[tuple[str, str, str]] = set()
    for file, doc in documents:
        for item in _items(doc, file):
            _located(check_kind, item, file)
            kind = item.get("kind")
            if kind in found and _in_group(item):
                _check(item, file)
                key = (str(kind), *_order(item))
                if key in seen:  # two versions of one object: which one holds is unknown
                    raise TfpolicyError(f"{kind} {'/'.join(key[1:]).lstrip('/')} appears twice "
                                        "in the snapshot", file=file)
                seen.add(key)
                found[str(kind)].append(item)
    return Snapshot({kind: tuple(sorted(objs, key=_order)) for kind, objs in found.items()})


def _items(doc: Any, file: str) -> list[Mapping[str, Any]]:
    if doc is None:
        return []
    if not isinstance(doc, Mapping):
        raise TfpolicyError("a cluster snapshot holds Kubernetes objects (mappings)", file=file)
    if str(doc.get("kind", "")).endswith("List"):
        items = doc.get("items") or []
        if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
            raise TfpolicyError("items: expected a list of objects", file=file)
        return list(items)
    return [doc]


def _in_group(item: Mapping[str, Any]) -> bool:
    """TensorFusion's kinds only from their own group: another GPU CRD is not the operator's."""
    api = str(item.get("apiVersion", ""))
    if item.get("kind") in ("GPU", "GPUNode", "GPUPool"):
        return api.startswith(_TF_GROUP)
    if item.get("kind") == "Rollout":  # Argo's; another project may have a kind so named
        return api.startswith(_ARGO_GROUP)
    if item.get("kind") in gitops.KINDS:  # Argo CD's and Flux's, from their own groups
        return gitops.in_group(item)
    return True


def _check(item: Mapping[str, Any], file: str) -> None:
    meta = item.get("metadata")
    if not isinstance(meta, Mapping) or not meta.get("name"):
        raise TfpolicyError(f"a {item.get('kind')} without metadata.name", file=file)
    for part in ("spec", "status"):
        if not isinstance(item.get(part) or {}, Mapping):
            raise TfpolicyError(f"{item.get('kind')} {meta['name']}: {part} is not a mapping",
                                file=file)
    _located(check_shape, item, file)
    if item.get("kind") in gitops.KINDS:
        _located(gitops.check_shape, item, file)
    _located(_check_quantities, item, file)


def _located(check: Callable[[Mapping[str, Any]], None], item: Mapping[str, Any],
             file: str) -> None:
    try:
        check(item)
    except TfpolicyError as exc:
        raise exc.located(file) from None


def _check_quantities(item: Mapping[str, Any]) -> None:
    """The numbers the GPU ledger reads, checked here so an error names the file."""
    if item.get("kind") == "GPU":
        status = item.get("status") or {}
        for part in ("capacity", "available"):
            values = status.get(part) or {}
            if not isinstance(values, Mapping):
                raise TfpolicyError(f"GPU {name_of(item)}: status.{part} is not a mapping")
            tflops_of(values.get("tflops", "0"), f"GPU {name_of(item)} status.{part}.tflops")
            vram_of(values.get("vram", "0"), f"GPU {name_of(item)} status.{part}.vram")
    if item.get("kind") == "Pod":
        notes, where = meta(item, "annotations"), f"Pod {namespace_of(item)}/{name_of(item)}"
        tflops_of(notes.get(_TFLOPS_REQUEST, "0"), f"{where} {_TFLOPS_REQUEST}")
        vram_of(notes.get(_VRAM_REQUEST, "0"), f"{where} {_VRAM_REQUEST}")
        tflops_of(notes.get(_PERCENT_REQUEST, "0"), f"{where} {_PERCENT_REQUEST}")


def _order(item: Mapping[str, Any]) -> tuple[str, str]:
    meta = item["metadata"]
    return str(meta.get("namespace") or ""), str(meta["name"])


def meta(item: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``metadata.labels`` / ``metadata.annotations`` as a mapping (absent: empty)."""
    value = (item.get("metadata") or {}).get(key)
    return value if isinstance(value, Mapping) else {}


def name_of(item: Mapping[str, Any]) -> str:
    return str(item["metadata"]["name"])


def namespace_of(item: Mapping[str, Any]) -> str:
    return str(item["metadata"].get("namespace") or "")


def controller_of(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """(kind, name) of the ownerReference with ``controller: true``."""
    for ref in (item.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return str(ref.get("kind", "")), str(ref.get("name", ""))
    return None
