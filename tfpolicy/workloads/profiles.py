"""GPUs asked for by a name or a count instead of a resource, in a custom resource of a kind
tfpolicy does not know (docs/kinds.md, "GPUs named by a profile").

A KubeAI ``Model`` asks ``resourceProfile: nvidia-gpu-h100:8`` and its operator turns the
profile into ``nvidia.com/gpu`` on the pods (kubeai-project/kubeai@f442a2cd
internal/modelcontroller/model_controller.go:272-305); other operators take a GPU count in
a field of their own (``gpus: 4``, SkyPilot's ``accelerators: A100:8``). Such a request
names no resource the walk of :mod:`tfpolicy.workloads.finder` could see, so each of these
shapes is a *candidate*: reported as a question, never migrated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from tfpolicy.edits import Path

# Substrings one of which a document holding such a field holds (beside ``gpu``, a
# vendor marker of :mod:`tfpolicy.gpus.vendors`).
MARKERS = ("accelerator", "Accelerator", "resourceProfile")
# ``<vendor>-gpu-<model>:<count>``, KubeAI's profile spelling (model_controller.go:274-276).
PROFILE = re.compile(r"[a-z0-9]+-gpu-[a-z0-9][a-z0-9._-]*:[0-9]+", re.IGNORECASE)
# A field named for GPUs or accelerators, with a count: gpus, gpuCount, num_gpus,
# gpusPerNode, accelerators, ...
_FIELD = re.compile(r"(?:num|n)?(?:gpus?|accelerators?)(?:count|num|number|per[a-z]+)?")
_ACCELERATOR = re.compile(r"[A-Za-z0-9._-]+:[0-9]+")  # SkyPilot's ``A100:8``
# Groups whose kinds Kubernetes itself defines: their fields are known, none is a profile.
_BUILTIN = ("", "apps", "batch", "autoscaling", "policy", "extensions")


def builtin_group(obj: Mapping[str, Any]) -> bool:
    api = obj.get("apiVersion")
    group = api.rpartition("/")[0] if isinstance(api, str) else ""
    return group in _BUILTIN or group.endswith(".k8s.io")


def candidates(obj: Mapping[str, Any]) -> Iterator[tuple[Path, str, Any]]:
    """Each field of a custom resource that asks GPUs by name or count: its path, the field's
    name, and its value. None in an object of Kubernetes' own kinds, nor outside objects."""
    if not isinstance(obj.get("kind"), str) or not obj.get("apiVersion") or builtin_group(obj):
        return
    stack: list[tuple[Any, Path]] = [(obj, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict | list):
                    stack.append((value, (*path, key)))
                elif _asks(key, value):
                    yield (*path, key), str(key), value
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, dict | list):
                    stack.append((value, (*path, index)))
                elif isinstance(value, str) and PROFILE.fullmatch(value):
                    yield (*path, index), "", value


def _asks(key: Any, value: Any) -> bool:
    if isinstance(value, str) and PROFILE.fullmatch(value):
        return True
    if not isinstance(key, str):
        return False
    name = key.lower().replace("-", "").replace("_", "")
    if not _FIELD.fullmatch(name):
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return value > 0
    if isinstance(value, str):
        text = value.strip()
        return (text.isdigit() and int(text) > 0) or (
            "accelerator" in name and _ACCELERATOR.fullmatch(text) is not None
            and not text.endswith(":0"))
    return False
