"""One unit's pods in one step: admitted as the webhook would, then turned into requests.

The first ``taken_over`` pods of the revision become TensorFusion pods; the
rest are admitted unmutated (NexusGPU/tensor-fusion
internal/webhook/v1/pod_webhook.go:158). Two admissions per unit are
enough: one under the cap, one over it. An unmutated pod whose template
has no GPU left (a rightsize template under ``enabled-replicas``: the
native limits are gone) runs without any GPU — counted as ``no_gpu`` and
warned about, since that pod would start and fail on the GPU it expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.admission import Admission, AdmissionContext, Decision, WebhookConfig, admit
from tfpolicy.admission import taken_over as count_taken_over
from tfpolicy.admission.keys import ENABLED_REPLICAS
from tfpolicy.frameworks.traps import pool_traps
from tfpolicy.plan.bridge import ISOLATION, native_request, tf_request
from tfpolicy.plan.units import Unit
from tfpolicy.records import Record, fields, replace
from tfpolicy.scheduler import PodRequest

_TAKEN = (Decision.TENSOR_FUSION, Decision.MIGRATED)


class UnitPods(Record):
    """What one unit runs in a step; ``error`` set when the webhook rejects its pods."""

    pods: tuple[PodRequest, ...] = ()
    tensor_fusion: int = 0
    native: int = 0
    no_gpu: int = 0
    error: str = ""
    warnings: tuple[str, ...] = ()


def unit_pods(unit: Unit, template: Mapping[str, Any], step: int,
              webhook: WebhookConfig) -> UnitPods:
    """Admit ``unit.replicas`` pods of ``template``; pods are named ``<unit>-s<step>-<i>``."""
    ctx = AdmissionContext(unit.namespace, unit.name, owner_kind=unit.kind,
                           replicas=unit.replicas, webhook=webhook)
    first = admit(template, ctx)
    if first.rejected:
        return UnitPods(error=first.error)
    taken = _taken(first, template, ctx, unit.replicas)
    rest = first
    if 0 < taken < unit.replicas:
        rest = admit(template, replace(ctx, taken_over=taken))
    if rest.rejected:
        return UnitPods(error=rest.error)
    found = _pods(unit, step, first, rest, taken, webhook)
    pool = tuple(f"{unit.key}: {message}" for _, message, _ in pool_traps(template))
    return replace(found, warnings=found.warnings + pool) if pool and taken else found


def _taken(first: Admission, template: Mapping[str, Any], ctx: AdmissionContext,
           replicas: int) -> int:
    if first.decision not in _TAKEN:
        return 0
    labels = (template.get("metadata") or {}).get("labels") or {}
    return count_taken_over(replicas, enabled_replicas_cap(template),
                            pod_template_hash=ctx.counts_replicas(labels))


def enabled_replicas_cap(template: Mapping[str, Any]) -> int | None:
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    value = annotations.get(ENABLED_REPLICAS)
    try:
        return None if value is None else int(str(value))
    except ValueError:
        return None  # the webhook rejects it; admit already said so


def _pods(unit: Unit, step: int, first: Admission, rest: Admission, taken: int,
          webhook: WebhookConfig) -> UnitPods:
    # Every pod of a unit asks for one of two things: build each request once, then name it.
    taken = min(taken, unit.replicas) if first.allocation is not None else 0
    head = tf_request("", unit.key, first.allocation) if first.allocation and taken else None
    tail = _unmutated("", unit, rest, webhook) if taken < unit.replicas else None
    prefix, left = f"{pod_prefix(unit)}-s{step}-", unit.replicas - taken
    pods = _named(head, prefix, range(taken)) + _named(tail, prefix, range(taken, unit.replicas))
    native, no_gpu = (left, 0) if tail is not None else (0, left)
    return UnitPods(tuple(pods), len(pods) - native, native, no_gpu,
                    warnings=_warnings(unit, first, no_gpu, taken))


def _named(request: PodRequest | None, prefix: str, ordinals: range) -> list[PodRequest]:
    """Copies of ``request`` named ``<prefix><i>`` (positional: the name is the first field,
    and this runs once per simulated pod)."""
    if request is None:
        return []
    rest = [getattr(request, f.name) for f in fields(PodRequest)[1:]]
    return [PodRequest(f"{prefix}{i}", *rest) for i in ordinals]


def _unmutated(name: str, unit: Unit, admission: Admission,
               webhook: WebhookConfig) -> PodRequest | None:
    if admission.decision in _TAKEN and admission.allocation is not None:
        return tf_request(name, unit.key, admission.allocation)
    assert admission.pod is not None
    return native_request(name, unit.namespace, unit.key, admission.pod, webhook.resources,
                          webhook.hami_shares)


def _warnings(unit: Unit, first: Admission, no_gpu: int, taken: int) -> tuple[str, ...]:
    found = []
    if no_gpu and taken:
        found.append(f"{unit.key}: {no_gpu} of {unit.replicas} pods over enabled-replicas are "
                     "admitted unmutated with no GPU left in the template: they run without a GPU")
    elif no_gpu:  # no pod taken over: what the template asks for, no one gives as a GPU
        found.append(f"{unit.key}: its {no_gpu} pods hold no GPU: neither TensorFusion's "
                     "webhook nor the device plugin gives one for what the template asks "
                     "(HAMi requests or a priority alone ask for no share)")
    if first.allocation is not None and first.allocation.isolation not in ISOLATION:
        found.append(f"{unit.key}: isolation {first.allocation.isolation} is placed as soft; "
                     "partitions are not simulated")
    return tuple(found)


def pod_prefix(unit: Unit) -> str:
    """Unique per unit, readable in a diagnosis: ``deployment-llama-8b-vllm``."""
    _, _, shown, *tail = unit.key.split("/", 3)
    copy = shown.rpartition(" #")[2] if " #" in shown else ""  # units.py: a second run
    name = unit.name or "-".join(filter(None, (unit.generate_name.rstrip("-") or "no-name",
                                               copy)))
    return "-".join([unit.kind.lower(), name, *tail])
