"""``tfpolicy admission``'s core: every pod template of the manifests through the webhook.

Pure: documents in, one record per pod template out, with the admitted Pod
(or the error), the changes, the allocation request and how many of the
workload's pods the webhook takes over under ``enabled-replicas`` (NexusGPU/tensor-fusion
internal/webhook/v1/pod_counter.go:40).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import Any

from tfpolicy.admission import Admission, AdmissionContext, Decision, WebhookConfig, admit
from tfpolicy.admission import taken_over as count_taken_over
from tfpolicy.admission.parse import workload_name
from tfpolicy.admission.placeholders import refuse_placeholders
from tfpolicy.edits import Path
from tfpolicy.findings import ResourceRef, object_ref
from tfpolicy.plan.unit_pods import enabled_replicas_cap
from tfpolicy.plan.units import Document, copy_of, template_label, with_copy
from tfpolicy.records import Record, replace
from tfpolicy.rewrite.engine import objects
from tfpolicy.workloads import NotCounted, Registry, replicas_of
from tfpolicy.workloads.views import View

_TAKEN = (Decision.TENSOR_FUSION, Decision.MIGRATED)


class Admitted(Record):
    file: str
    path: Path  # of the template, from the document root
    kind: str
    namespace: str
    name: str
    template: str  # "" for a single template, else e.g. "Worker"
    index: int  # the template's index within its object
    replicas: int | None  # None: one per node (DaemonSet), or a kind tfpolicy does not count
    taken_over: int | None
    admission: Admission
    generate_name: str = ""  # the prefix the API server names it by, when it has no name
    copy: int = 1  # the second object without a name that shows the same is 2 (units.py)

    @property
    def key(self) -> str:
        """``shown_ref``'s name: ``Workflow/default/train-* (generateName)/templates-1``."""
        ref = ResourceRef("", self.kind, self.name, self.namespace, self.generate_name)
        shown = with_copy(str(ref), self.copy)
        return f"{shown}/{self.template}" if self.template else shown

    @property
    def file_name(self) -> str:
        """``<namespace>_<kind>_<name>[_<index>].yaml``, safe as one file name.

        Names come from the manifests, so anything but letters, digits, ``.``,
        ``_`` and ``-`` becomes ``_`` (no ``/``, NUL or ``..`` survives), a
        leading dot is dropped, and a long name is cut and tagged with a hash
        of the whole, so distinct objects keep distinct files.
        """
        suffix = f"_{self.index}" if self.template else ""
        name = self.name or self.generate_name or "no-name"
        name += f"-{self.copy}" if self.copy > 1 else ""
        return safe_file_name(f"{self.namespace}_{self.kind}_{name}{suffix}") + ".yaml"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_STEM = 120  # well under every filesystem's 255-byte name limit, with room for ".yaml"


def safe_file_name(stem: str) -> str:
    cleaned = _UNSAFE.sub("_", stem).lstrip(".") or "_"
    if cleaned == stem and len(stem) <= _MAX_STEM:
        return stem
    digest = hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{cleaned[:_MAX_STEM - 13]}-{digest}"


def admit_all(docs: list[Document], webhook: WebhookConfig, namespace: str) -> list[Admitted]:
    registry, seen = Registry(), dict[str, int]()
    return [item for doc in docs for item in _admit_doc(doc, registry, webhook, namespace,
                                                        seen)]


def _admit_doc(doc: Document, registry: Registry, webhook: WebhookConfig,
               namespace: str, seen: dict[str, int]) -> Iterator[Admitted]:
    for base, obj in objects(doc.data):
        views, copy = registry.views(obj), copy_of(obj, namespace, seen)
        for index, view in enumerate(views):
            item = _admit_one(doc, obj, base, view, index if len(views) > 1 else None,
                              webhook, namespace)
            yield replace(item, copy=copy)


def _admit_one(doc: Document, obj: Mapping[str, Any], base: Path, view: View, index: int | None,
               webhook: WebhookConfig, namespace: str) -> Admitted:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    kind, name = str(obj.get("kind", "")), str(meta.get("name") or "")
    ns = str(meta.get("namespace") or namespace)
    path, template = view.path, view.template
    refuse_placeholders(template, webhook.resources, lambda p: base + (view.real(p) or path),
                        (doc.file, doc.index), f"{kind}/{object_ref(obj).shown_name}")
    try:
        replicas = replicas_of(obj, path)
    except NotCounted:
        replicas = None
    ctx = AdmissionContext(ns, name, owner_kind=kind, replicas=replicas, webhook=webhook,
                           generate_name=str(meta.get("generateName") or ""))
    admission = admit(template, ctx)
    taken = None
    if admission.decision in _TAKEN and replicas is not None:
        labels = (template.get("metadata") or {}).get("labels") or {}
        taken = count_taken_over(replicas, enabled_replicas_cap(template),
                                 pod_template_hash=ctx.counts_replicas(labels))
    name = name or workload_name(ctx)
    label = template_label(path) if index is not None else ""
    return Admitted(doc.file, base + path, kind, ns, name, label, index or 0, replicas, taken,
                    admission, "" if name else ctx.generate_name)


def namespace_labels(docs: list[Document]) -> dict[str, dict[str, str]]:
    """Labels of the Namespace objects among ``docs`` (for ``namespaceSelector``:
    auto_migration.go:94)."""
    found: dict[str, dict[str, str]] = {}
    for doc in docs:
        for _, obj in objects(doc.data):
            meta = obj.get("metadata")
            if obj.get("kind") == "Namespace" and isinstance(meta, Mapping) and meta.get("name"):
                labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
                assert isinstance(labels, Mapping)
                found[str(meta["name"])] = {str(k): str(v) for k, v in labels.items()}
    return found
