"""What the simulations read besides the manifests: policies, inventory, the webhook's
and the scheduler's configuration (``admission``, ``plan``, ``verify``, ``promote``).

Every file is read before anything runs, so bad input exits 2 with nothing
written; an error in a file the user named is located at that file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfpolicy import yamlio
from tfpolicy.admission import Found, ModelCapacity, WebhookConfig, operator_objects, webhook_config
from tfpolicy.admission import Pool as WebhookPool
from tfpolicy.admission.objects import is_operator_object
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.documents import read_documents, read_mapping
from tfpolicy.files.operator import operator_found
from tfpolicy.files.sources import load_policy_set, policy_source, read_text
from tfpolicy.inventory import checked_inventory, settings_from_values
from tfpolicy.plan import Document, PlanInput, Rung, admission_pools, model_capacities
from tfpolicy.plan.admission_report import namespace_labels
from tfpolicy.records import Record, replace
from tfpolicy.rewrite.engine import objects
from tfpolicy.scheduler import Inventory, SchedulerSettings


class Cluster(Record):
    """How the operator is configured, as the command was told (``--values``,
    ``--namespaces``, ``--operator-config``) and its namespace decided."""

    values: str | None  # the chart's Helm values
    namespaces: str | None  # Namespace objects, whose labels namespaceSelector reads
    operator: tuple[str, ...]  # files of operator objects (ProviderConfig, GPUPool, …)
    namespace: str  # for manifests that name none


class Policies(Record):
    """The raw, schema-valid policy documents, and how the report names them."""

    documents: tuple[Mapping[str, Any], ...]
    shown: str


def policy_documents(refs: tuple[str, ...], base: Path = Path(".")) -> Policies:
    """The policies ``refs`` name (files, or built-in names), as documents; validation
    raises (exit 2)."""
    given = list(refs)
    load_policy_set(given, base)
    docs: list[Mapping[str, Any]] = []
    for ref in given:
        file, text = policy_source(ref, base)
        docs.extend(d for d in yamlio.load_all(text, file=file) if isinstance(d, Mapping))
    return Policies(tuple(docs), ", ".join(given))


def read_inventory(path: str) -> Inventory:
    """An inventory file (``tfpolicy.inventory.checked_inventory``)."""
    return checked_inventory(yamlio.load_all(read_text(path), file=path), path)


def plan_input(docs: list[Document], policies: Policies, fleet: Inventory, cluster: Cluster,
               ladder: tuple[Rung, ...], *, chart_pool: bool = False) -> PlanInput:
    """The plan's input: the webhook as configured over ``fleet``'s pools and models, and
    the scheduler as the values set it. The values file is read once: a pipe
    (``<(helm get values …)``) reads once. ``chart_pool``: a fleet without pools (a
    cluster the operator is not yet installed in) takes the chart's default pool; the
    plan's own inventory, which says what will be, has its pools or none."""
    raw = read_mapping(cluster.values, "--values")
    pools = admission_pools(fleet) if fleet.pools or not chart_pool else None
    webhook = cluster_webhook(cluster, docs, pools, model_capacities(fleet), raw)
    return PlanInput(tuple(docs), policies.documents, fleet, webhook, ladder, cluster.namespace,
                     policies.shown, scheduler_settings(cluster.values, raw))


def cluster_webhook(cluster: Cluster, docs: list[Document],
                    pools: tuple[WebhookPool, ...] | None = None,
                    gpu_models: Mapping[str, ModelCapacity] | None = None,
                    raw: Mapping[str, Any] | None = None) -> WebhookConfig:
    """The webhook as configured: Helm values, the operator's objects, namespace labels.

    Operator objects come from ``--operator-config`` files and from the
    manifests themselves. GPUPool objects give the pools (``pools``, the
    plan's inventory pools, keep their names and default; the objects add
    their settings); GPU objects add model capacities over ``gpu_models``.
    ``raw``: the values file already read, else it is read here.
    """
    labels = namespace_labels(docs)
    if cluster.namespaces is not None:
        labels.update(namespace_labels(read_documents((cluster.namespaces,))))
    given = operator_found(cluster.operator) if cluster.operator else []  # none: not stdin
    found = operator_objects([*_operator_found(docs), *given], cluster.namespace)
    if raw is None:
        raw = read_mapping(cluster.values, "--values")
    try:
        return webhook_config(
            raw, pools=_pools(found.pools, pools), namespace_labels=labels,
            gpu_models={**(gpu_models or {}), **found.gpu_models}, quotas=found.quotas,
            providers=found.providers, profiles=found.profiles)
    except TfpolicyError as exc:
        raise exc.located(cluster.values or "--values") from None


def scheduler_settings(values: str | None,
                       raw: Mapping[str, Any] | None = None) -> SchedulerSettings | None:
    """What the chart's values change in scheduling (isolation mode policy, score weights,
    progressive migration); without ``--values`` the inventory's ``spec.scheduler`` holds,
    else the chart's defaults. ``raw``: the values file already read (else it is read)."""
    if values is None:
        return None
    try:
        return settings_from_values(read_mapping(values, "--values") if raw is None else raw)
    except TfpolicyError as exc:
        raise exc.located(values) from None


def _operator_found(docs: list[Document]) -> list[Found]:
    return [Found(doc.file, obj) for doc in docs for _, obj in objects(doc.data)
            if is_operator_object(obj)]


def _pools(given: tuple[WebhookPool, ...],
           inventory: tuple[WebhookPool, ...] | None) -> tuple[WebhookPool, ...] | None:
    if inventory is None:
        return given or None  # None: the chart's default pool
    settings = {p.name: p for p in given}
    return tuple(replace(settings[p.name], is_default=p.is_default) if p.name in settings else p
                 for p in inventory)
