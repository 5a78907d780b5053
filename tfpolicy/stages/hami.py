"""Migrating from HAMi: its per-GPU share, written as resources, into TensorFusion's annotations.

HAMi (Project-HAMi/HAMi at 4707fb02) reads, per container, each of its
resources from the limit, else the request (``pkg/device/nvidia/device.go``
``GenerateResourceRequests``, 520-600), all per GPU:

- ``nvidia.com/gpumem``: MiB, a plain integer in int32 range (539-542);
- ``nvidia.com/gpumem-percentage``: 0-100 of the card's memory, rejected
  outside (389-396), used only when no ``gpumem`` is set (780-782);
- ``nvidia.com/gpucores``: percent of the card's SMs, clamped to 100 (772-775);
- neither memory resource: the whole card (defaultMemory 0, 572-578).

So ``gpucores`` becomes ``compute-percent-request``/``-limit`` and the memory
becomes ``vram-request``/``-limit`` (HAMi has one number: request = limit);
a percentage needs the card's VRAM, from the policy's ``gpuModel`` or a
``use-gputype`` naming exactly one known card. Where HAMi says nothing, the
policy's share applies. The HAMi resources are removed with the GPU count
and recorded; HAMi's annotations are removed and recorded too. A cluster
that renamed the resources or set ``memoryFactor`` says so in the policy's
``hami`` (:class:`tfpolicy.gpus.resources.Hami`): the names are read from there, and
``gpumem`` times the factor is the MiB.

Neither takeover nor a capped rightsize can carry them: both keep the native
resources in the template, the TensorFusion webhook strips only the
ProviderConfig names (not HAMi's), and no node advertises HAMi's resources
(its chart marks them ``ignoredByScheduler`` for its own extender,
``charts/hami/templates/_helpers.tpl:198-202``), so the pods would stay
Pending. Both refuse such a template.
"""

from __future__ import annotations

from typing import Any

from tfpolicy.findings import Severity
from tfpolicy.gpus import table as gputable
from tfpolicy.gpus.resources import HAMI, HAMI_ANNOTATIONS, HAMI_USE_TYPE, Hami
from tfpolicy.policy.model import Settings
from tfpolicy.records import Record, field
from tfpolicy.stages.common import (
    TF,
    Note,
    Usage,
    annotations_of,
    containers,
    gpu_usage,
    whole_count,
)
from tfpolicy.stages.keys import GPU_MODEL, PERCENT, VRAM

_INT32 = 2**31 - 1


class Conversion(Record):
    """What rightsize writes and removes for HAMi; empty for a template HAMi does not share."""

    annotations: dict[str, str] = field(default_factory=dict)
    remove: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()


class _Share(Record):
    vram_mib: int | None
    cores: int | None


def hami_usage(template: Any, hami: Hami = HAMI) -> Usage:
    """The HAMi resources each container asks for, as written, in document order."""
    return gpu_usage(template, frozenset(hami.resources))


def refusal(template: Any, why: str, hami: Hami = HAMI) -> list[Note]:
    """An error at the first HAMi resource when the stage cannot carry HAMi's share."""
    usage = hami_usage(template, hami)
    if not usage:
        return []
    name, sections = next(iter(usage.items()))
    section, entries = next(iter(sections.items()))
    resource = next(iter(entries))
    message = (f"{resource} in container {name!r} is a HAMi share, {why}, and no node "
               "offers HAMi's resources outside its scheduler: use rightsize at 100 %, "
               "which converts them")
    path = _path(template, name, section, resource)
    return [Note(Severity.ERROR, "hami-resources", message, path)]


def convert(template: Any, settings: Settings, gpus: Usage) -> Conversion:
    """The TensorFusion share for HAMi's, or errors (in ``notes``) where it cannot be told."""
    hami = settings.hami or HAMI
    usage = hami_usage(template, hami)
    found = annotations_of(template)
    present = tuple(key for key in HAMI_ANNOTATIONS if key in found)
    if not usage and not present:
        return Conversion()
    model, notes = _model(settings, found.get(HAMI_USE_TYPE))
    shares = [_share(template, (name, sections), hami, model, notes)
              for name, sections in _containers(gpus, usage).items()]
    annotations = _annotations(shares, notes) if shares else {}
    if model is not None and settings.gpu_model is None:
        annotations[GPU_MODEL] = model.full_name
    notes += [_dropped(key, found[key]) for key in present
              if key != HAMI_USE_TYPE or model is None or settings.gpu_model is not None]
    notes += (_priority(template, usage, hami.priority)
              + _converted(annotations, settings.resources is not None))
    return Conversion(annotations, present, tuple(notes))


def gpus_by_default(gpus: Usage, usage: Usage, hami: Hami = HAMI) -> int:
    """GPUs HAMi's webhook adds: one for each container with a share limit (cores, memory
    or its percentage; not the priority) and no GPU count (``device.go:398-415``,
    defaultGPUNum 1)."""
    shares = {hami.memory, hami.memory_percent, hami.cores}
    return sum(1 for name, sections in usage.items()
               if name not in gpus and shares & set(sections.get("limits", {})))


def _containers(gpus: Usage, usage: Usage) -> dict[str, dict[str, dict[str, Any]]]:
    names = [*gpus, *(name for name in usage if name not in gpus)]
    return {name: usage.get(name, {}) for name in names}


def _value(sections: dict[str, dict[str, Any]], resource: str) -> tuple[str, Any] | None:
    for section in ("limits", "requests"):  # the limit, else the request
        if resource in sections.get(section, {}):
            return section, sections[section][resource]
    return None


def _number(template: Any, name: str, sections: dict[str, dict[str, Any]], resource: str,
            most: int, notes: list[Note]) -> int | None:
    """A HAMi value as the whole number HAMi reads, or ``None`` (absent, or an error noted)."""
    found = _value(sections, resource)
    if found is None:
        return None
    amount = whole_count(found[1])
    if amount is None or amount > most:
        limit = "a whole number" if most == _INT32 else f"a whole number from 0 to {most}"
        message = f"{resource} in container {name!r} is not {limit}, as HAMi reads it"
        notes.append(Note(Severity.ERROR, "invalid-hami-quantity", message,
                          _at(template, name, sections, resource)))
        return None
    return amount


def _share(template: Any, container: tuple[str, dict[str, dict[str, Any]]], hami: Hami,
           model: gputable.GpuInfo | None, notes: list[Note]) -> _Share:
    name, sections = container
    # memoryFactor scales the value; HAMi refuses one whose product leaves int32 (538-546)
    mem = _number(template, name, sections, hami.memory, _INT32 // hami.memory_factor, notes)
    percent = _number(template, name, sections, hami.memory_percent, 100, notes)
    cores = _number(template, name, sections, hami.cores, _INT32, notes)
    vram = mem * hami.memory_factor if mem else None
    if vram is None and percent:
        card = model.vram_mib if model is not None else None
        if card is None:
            where = _at(template, name, sections, hami.memory_percent)
            message = (f"{hami.memory_percent} in container {name!r} is a share of the card's "
                       "memory, and no card of known VRAM is named (by the policy's gpuModel "
                       f"or as the one card of {HAMI_USE_TYPE}): set gpuModel in the policy")
            notes.append(Note(Severity.ERROR, "hami-card-unknown", message, where))
        else:
            vram = card * percent // 100  # HAMi: Totalmem * percent / 100, in whole MiB
    return _Share(vram, min(cores, 100) if cores else None)


def _annotations(shares: list[_Share], notes: list[Note]) -> dict[str, str]:
    if len(set(shares)) > 1:
        message = ("the GPU containers ask HAMi for different shares; TensorFusion gives every "
                   "GPU of a pod the same share")
        notes.append(Note(Severity.ERROR, "hami-shares-differ", message))
        return {}
    share, out = shares[0], dict[str, str]()
    if share.cores is not None:
        out.update(dict.fromkeys(PERCENT, str(share.cores)))
    if share.vram_mib is not None:
        out.update(dict.fromkeys(VRAM, f"{share.vram_mib}Mi"))
    return out


def _model(settings: Settings, use_type: Any) -> tuple[gputable.GpuInfo | None, list[Note]]:
    """The card: the policy's ``gpuModel``, else the one known card HAMi's ``use-gputype``
    names (its entries match the card type as substrings, ``pkg/device/devices.go:719-738``)."""
    if settings.gpu_model is not None:
        return gputable.lookup(settings.gpu_model), []
    entries = [e for e in str(use_type).split(",") if e.strip()] if use_type else []
    matches = gputable.models_containing(entries[0]) if len(entries) == 1 else ()
    if len(matches) != 1:
        return None, []
    message = (f"{HAMI_USE_TYPE} {entries[0].strip()!r} becomes {GPU_MODEL} "
               f"{matches[0].full_name!r} (the one known card it names)")
    return matches[0], [Note(Severity.INFO, "hami-gpu-type", message,
                             ("metadata", "annotations", HAMI_USE_TYPE))]


def _dropped(key: str, value: Any) -> Note:
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    message = (f"HAMi's {key} {shown} has no TensorFusion equivalent here: removed, and kept "
               "in the record for rollback")
    return Note(Severity.WARNING, "hami-annotation-dropped", message,
                ("metadata", "annotations", key))


def _priority(template: Any, usage: Usage, priority: str) -> list[Note]:
    names = [name for name, sections in usage.items()
             if any(priority in entries for entries in sections.values())]
    if not names:
        return []
    message = (f"{priority} in container {names[0]!r} has no TensorFusion equivalent: "
               f"removed (recorded); set {TF}qos through the policy's qos instead")
    where = _at(template, names[0], usage[names[0]], priority)
    return [Note(Severity.WARNING, "hami-priority-dropped", message, where)]


def _converted(annotations: dict[str, str], policy_share: bool) -> list[Note]:
    """Say what HAMi's share became: it replaces the policy's share for those families."""
    parts = [f"compute-percent {annotations[PERCENT[0]]}" if PERCENT[0] in annotations else "",
             f"VRAM {annotations[VRAM[0]]}" if VRAM[0] in annotations else ""]
    shown = " and ".join(part for part in parts if part)
    if not shown:
        return []
    over = ", over the policy's share for it" if policy_share else ""
    message = f"HAMi's share becomes {shown} per GPU{over}"
    return [Note(Severity.INFO, "hami-share", message)]


def _at(template: Any, name: str, sections: dict[str, dict[str, Any]],
        resource: str) -> tuple[str | int, ...]:
    found = _value(sections, resource)
    return _path(template, name, found[0] if found else "limits", resource)


def _path(template: Any, name: str, section: str, resource: str) -> tuple[str | int, ...]:
    index = {str(c.get("name", "")): i for i, c in enumerate(containers(template))}
    return ("spec", "containers", index[name], "resources", section, resource)
