"""Stage ``rightsize``: shrink to the real share (guide step 5), optionally autoscaled (5b).

With ``enabledReplicas`` below 100 % the native GPU resources stay in the
template: the webhook admits pods over the cap unmutated (NexusGPU/tensor-fusion
``internal/webhook/v1/pod_webhook.go:164-170``), so they keep their whole GPUs
from the device plugin, while pods under the cap get the share and lose the
native resources at admission (``pod_webhook.go:448``, ``:645-655``). Were
they removed here, the capped-out replicas would run with no GPU at all.
The step to 100 % removes and records them. Its keys, each recorded with
the user's value: :mod:`tfpolicy.stages.keys`.

Facts (NexusGPU/tensor-fusion at 3e0a4901): the webhook defaults ``gpu-count`` to 1
once no native limit is left (``internal/webhook/v1/tf_parser.go:590-593``),
so the summed count is written; a multi-container pod needs
``inject-container`` or is rejected (``tf_parser.go:171-174``); ``shared``
takes whole GPUs whatever TFLOPS/VRAM say
(``internal/gpuallocator/gpuallocator.go:975-977``), so it is never written
here; vendors without a soft limiter reject soft isolation
(``pkg/constants/vendors.go:72-115``).
"""

from __future__ import annotations

from typing import Any

from tfpolicy.edits import clone
from tfpolicy.findings import Severity
from tfpolicy.gpus.resources import HAMI, MIG_PREFIX, Hami, vendor_of
from tfpolicy.policy.model import Resources, Settings
from tfpolicy.stages.common import (
    TF,
    Note,
    StageContext,
    Usage,
    containers,
    gpu_usage,
    whole_count,
)
from tfpolicy.stages.hami import Conversion, convert, gpus_by_default, hami_usage, refusal
from tfpolicy.stages.keys import ENABLED, GPU_MODEL, PERCENT, TFLOPS, VRAM
from tfpolicy.stages.ownership import Writes, stamp
from tfpolicy.stages.shared import enabled_replicas, placement_annotations

NO_SOFT_LIMITER = frozenset({"AMD", "Hygon", "MetaX"})


def target(
    original: dict[str, Any], settings: Settings, ctx: StageContext
) -> tuple[dict[str, Any] | None, list[Note]]:
    usage = gpu_usage(original, ctx.gpus)
    cap, cap_notes = enabled_replicas(settings, ctx)
    # Capped-out pods stay on HAMi, so under a cap its annotations stay and its resources
    # cannot (module doc of tfpolicy.stages.hami).
    names = settings.hami or HAMI
    hami = Conversion() if cap else convert(original, settings, usage)
    count, notes = _gpu_count(usage, original,
                              gpus_by_default(usage, hami_usage(original, names), names))
    refused = refusal(original, "which a capped rightsize keeps", names) if cap else []
    combined = _combined(original, usage, hami_usage(original, names))
    removed = {} if cap else combined
    notes += [*hami.notes, *refused, *_no_share(settings, hami, names),
              *_bare_pod(ctx.kind, original, removed)]
    if count is None or any(n.severity is Severity.ERROR for n in notes):
        return None, [n for n in notes if n.severity is Severity.ERROR]  # nothing is written
    result = clone(original)
    _strip_gpus(result, removed)
    vendor, vendor_notes = _vendor(usage, settings)
    shares = _shares(settings.resources, hami.annotations)
    annotations = {
        **shares, TF + "gpu-count": str(count),
        **_inject(original, combined), **_isolation(settings), **placement_annotations(settings),
        **vendor, **cap, **_autoscale(settings), **_model(hami.annotations),
    }
    writes = Writes({ENABLED: "true"}, annotations, _other_share(shares), removed, hami.remove)
    stamped, stamp_notes = stamp(result, writes)
    return stamped, notes + cap_notes + vendor_notes + stamp_notes


def _bare_pod(kind: str, template: dict[str, Any], removed: Usage) -> list[Note]:
    """A Pod's resources stay as created: an update may change an image, tolerations or the
    deadline, and a resize only CPU and memory, never remove a limit (kubernetes/kubernetes
    pkg/apis/core/validation/validation.go, ``ValidatePodUpdate``, ``ValidatePodResize``:
    "resource limits cannot be removed"). A sync that removes its GPU resources is
    refused, so rightsize is, as enabled-replicas is on a bare Pod."""
    if kind != "Pod" or not removed:
        return []
    name = next(iter(removed))
    index = next(i for i, c in enumerate(containers(template)) if str(c.get("name", "")) == name)
    message = (f"rightsize removes the GPU resources of container {name!r}, and the API "
               "server refuses to change a Pod's resources once it is created: migrate the "
               "workload that creates the Pod, or use takeover")
    return [Note(Severity.ERROR, "rightsize-bare-pod", message,
                 ("spec", "containers", index, "resources"))]


def _combined(template: dict[str, Any], usage: Usage, hami: Usage) -> Usage:
    """The GPU and HAMi resources together, in document order, to remove and record."""
    names = {r for u in (usage, hami) for s in u.values() for e in s.values() for r in e}
    return gpu_usage(template, names)


def _gpu_count(usage: Usage, template: dict[str, Any],
               by_default: int) -> tuple[int | None, list[Note]]:
    """GPUs summed over containers (a limit, else the request), plus those HAMi gives by
    default; the counts were checked whole by :func:`~tfpolicy.stages.common.bad_counts`
    before any stage ran."""
    index = {str(c.get("name", "")): i for i, c in enumerate(containers(template))}
    total, notes = by_default, []
    for name, sections in usage.items():
        section = "limits" if sections.get("limits") else "requests"
        for resource, value in sections.get(section, {}).items():
            total += whole_count(value) or 0
            if resource.startswith(MIG_PREFIX):
                path = ("spec", "containers", index[name], "resources", section, resource)
                message = f"{resource} in container {name!r} counts as one whole GPU"
                notes.append(Note(Severity.WARNING, "mig-whole-gpu", message, path))
    if not 1 <= total <= 128:
        message = f"tensor-fusion.ai/gpu-count would be {total}; the webhook accepts 1 to 128"
        return None, [Note(Severity.ERROR, "gpu-count-range", message)]
    return total, notes


def _strip_gpus(template: dict[str, Any], usage: Usage) -> None:
    """Remove GPU resources from GPU containers; an emptied map goes too."""
    for container in containers(template):
        sections = usage.get(str(container.get("name", "")))
        if not sections:
            continue
        resources = container["resources"]
        for section, entries in sections.items():
            for resource in entries:
                del resources[section][resource]
            if not resources[section]:
                del resources[section]
        if not resources:
            del container["resources"]


def _shares(resources: Resources | None, hami: dict[str, str]) -> dict[str, str]:
    """The policy's share, where HAMi's (converted) does not say otherwise: the template's
    own sizing of a family wins over the policy's blanket one."""
    out = _policy_shares(resources)
    if any(key in hami for key in PERCENT):
        out = {k: v for k, v in out.items() if k not in (*TFLOPS, *PERCENT)}
    if any(key in hami for key in VRAM):
        out = {k: v for k, v in out.items() if k not in VRAM}
    return {**out, **{k: v for k, v in hami.items() if k in (*PERCENT, *VRAM)}}


def _no_share(settings: Settings, hami: Conversion, names: Hami) -> list[Note]:
    """Without the policy's resources (allowed with ``hami``), the template's HAMi share is
    the share; a template without one would get none, which the webhook rejects."""
    if settings.resources is not None or any(k in hami.annotations for k in (*PERCENT, *VRAM)):
        return []
    message = (f"the policy sets no resources and the template asks HAMi for no share "
               f"({names.cores}, {names.memory} or {names.memory_percent}) to convert: set "
               "resources in the policy")
    return [Note(Severity.ERROR, "no-share", message)]


def _model(hami: dict[str, str]) -> dict[str, str]:
    return {GPU_MODEL: hami[GPU_MODEL]} if GPU_MODEL in hami else {}


def _policy_shares(resources: Resources | None) -> dict[str, str]:
    if resources is None:
        return {}
    out: dict[str, str] = {}
    for prefix, pair in (("tflops", resources.tflops),
                         ("compute-percent", resources.compute_percent),
                         ("vram", resources.vram)):
        if pair is not None:
            out[f"{TF}{prefix}-request"] = pair.request
            out[f"{TF}{prefix}-limit"] = pair.limit
    return out


def _other_share(shares: dict[str, str]) -> tuple[str, ...]:
    """Both TFLOPS and compute-percent make the scheduler reserve nothing (NexusGPU/tensor-fusion
    ``internal/utils/config.go:201-205``, ``internal/utils/resource.go:134-141``): writing
    one family, the stage removes the user's other one (recorded)."""
    tflops, percent = (any(key in shares for key in family) for family in (TFLOPS, PERCENT))
    if tflops == percent:
        return ()
    return PERCENT if tflops else TFLOPS


def _inject(template: dict[str, Any], usage: Usage) -> dict[str, str]:
    if len(containers(template)) <= 1:
        return {}
    return {TF + "inject-container": ",".join(usage)}


def _isolation(settings: Settings) -> dict[str, str]:
    return {TF + "isolation": settings.isolation} if settings.isolation else {}


def _vendor(usage: Usage, settings: Settings) -> tuple[dict[str, str], list[Note]]:
    """Keep non-NVIDIA pods on their vendor once the native resource that implied it is gone."""
    vendors = {vendor_of(r) for s in usage.values() for e in s.values() for r in e}
    if len(vendors) != 1 or vendors == {"NVIDIA"} or vendors == {""}:
        return {}, []
    vendor = vendors.pop()
    notes = []
    if vendor in NO_SOFT_LIMITER and settings.isolation in (None, "soft"):
        message = f"{vendor} GPUs have no soft limiter: the webhook rejects soft isolation"
        notes.append(Note(Severity.ERROR, "no-soft-limiter", message))
    return {TF + "vendor": vendor}, notes


def _autoscale(settings: Settings) -> dict[str, str]:
    if settings.autoscale is None:
        return {}
    target_resource = {TF + "autoscale-target": settings.autoscale} if settings.autoscale else {}
    return {TF + "autoscale": "true", **target_resource}
