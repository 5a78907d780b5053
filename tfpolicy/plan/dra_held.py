"""GPUs a pod holds through DRA, as the plan's scheduler counts them: the device plugin's.

TensorFusion never takes a GPU a claim holds (its webhook reads container resources only:
NexusGPU/tensor-fusion internal/utils/reconcile.go:200-212), so such a pod stays a GPU
user outside TensorFusion at every step, as a device-plugin pod does, and the plan must
not hand its GPUs out twice (docs/kinds.md, "GPUs through DRA"). The scheduler knows GPUs
by resource name, so the pod's devices are written as its vendor's device-plugin
resource in its first container's limits, on a copy the plan only simulates.

Counted on the safe side: each pod counts the devices of every claim it names, a shared
``ResourceClaim`` too (the scheduler cannot share one device between pods), and a MIG
slice as a whole GPU; a claim that takes every matching device (``allocationMode: All``)
counts nothing, since no count is written.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tfpolicy.workloads import dra

# The device plugin's resource for each vendor's DRA GPU classes (docs/kinds.md).
PLUGIN = {"NVIDIA": "nvidia.com/gpu", "AMD": "amd.com/gpu", "Intel": "gpu.intel.com/i915",
          "Habana": "habana.ai/gaudi"}


def held(template: Any, namespace: str, claims: dra.ClaimIndex | None) -> dict[str, int]:
    """The device-plugin resources the template's DRA GPU claims stand for, per pod."""
    if claims is None or not isinstance(template, Mapping):
        return {}
    counts: dict[str, int] = {}
    for found in dra.gpu_devices(template, namespace, claims):
        if found.claim is None or not found.devices:
            continue
        vendor = found.asks[0][1].vendor
        if vendor in PLUGIN:
            counts[PLUGIN[vendor]] = counts.get(PLUGIN[vendor], 0) + found.devices
    return counts


def as_plugin(template: Mapping[str, Any], namespace: str,
              claims: dra.ClaimIndex | None) -> Mapping[str, Any]:
    """``template`` with its DRA GPUs as device-plugin limits of its first container (a
    copy); ``template`` itself when it holds none."""
    counts = held(template, namespace, claims)
    containers = (template.get("spec") or {}).get("containers")
    if not counts or not isinstance(containers, list) or not containers:
        return template
    out = copy.deepcopy(dict(template))
    first = out["spec"]["containers"][0]
    resources = first.setdefault("resources", {})
    limits = resources.setdefault("limits", {})
    for name, count in counts.items():
        limits[name] = int(limits.get(name, 0) or 0) + count
    return out
