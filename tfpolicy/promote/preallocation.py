"""The pre-allocation trap on the rightsize ladder (docs/promote.md, "Pre-allocating
servers").

A server that reserves a share of the GPU memory it is shown (vLLM's
``--gpu-memory-utilization``, SGLang's ``--mem-fraction-static``, TGI, TensorRT-LLM, JAX,
TensorFlow: ``tfpolicy.frameworks``) is shown its ``vram-limit`` under TensorFusion's soft
limiter, so a share that holds the model may still leave its pool too small to start.
``check`` warns; promote does not climb to a rightsize rung that writes such a limit
while the manifest keeps the setting, unless ``acceptPreallocation`` in ``.tfpolicy.yaml``
names the workload. The refusal names the setting's line and the value that fits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.frameworks.detect import Found
from tfpolicy.frameworks.traps import judged
from tfpolicy.plan import PlanInput
from tfpolicy.plan.step_view import step_units
from tfpolicy.records import Record


class Trap(Record):
    """One container the rung starves: where its setting is, and what fits."""

    workload: str  # Kind/namespace/name
    handle: str  # namespace/name, as acceptPreallocation names it
    doc: int  # index into the plan's documents
    path: Path  # the setting in its document (the container, when the setting is absent)
    message: str  # the verdict, and the value to write where one fits


def traps(given: PlanInput, number: int, accepted: Sequence[str]) -> list[Trap]:
    """The containers step ``number`` starves, but for the workloads ``accepted`` names
    (globs over namespace/name)."""
    found = []
    for unit, template in step_units(given, number):
        handle = f"{unit.namespace}/{unit.name}"
        if any(fnmatchcase(handle, glob) for glob in accepted):
            continue
        for framework, verdict in judged(template):
            if verdict.severity != "warning":
                continue
            write = (f"; write `{framework.set_to(verdict.value)}`"
                     if verdict.value is not None else "")
            where = (*unit.path, *_setting(template, framework)) if unit.shaped is None else ()
            found.append(Trap(unit.key, handle, unit.doc, where,
                              f"container {framework.container}: {verdict.message}{write}"))
    return found


def _setting(template: Mapping[str, Any], found: Found) -> Path:
    """Where the container sets what ``found`` read: its flag among the command and args,
    its env entry; the container itself when the setting is left to its default."""
    container = template["spec"]["containers"][found.index]
    at: Path = ("spec", "containers", found.index)
    name = found.setting
    for key in ("command", "args"):
        tokens = container.get(key)
        for index, token in enumerate(tokens if isinstance(tokens, list) else []):
            if str(token) == name or str(token).startswith(f"{name}="):
                return (*at, key, index)
    entries = container.get("env")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, Mapping) and entry.get("name") == name:
            return (*at, "env", index, "value")
    return at
