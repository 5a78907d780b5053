"""The plan page's canary rungs: the workloads a rung moves whole, since ``enabled-replicas``
is not enforced on their kind, and the ones it leaves for a later rung (the JSON's
``steps[].moved``, the text's "moved whole" and "wait for a later rung" lines).

A rung of 1 % that moves a whole RayCluster is something to read before approving, so the
workloads moved whole are also listed under the verdict, with the steps that move them.
"""

from __future__ import annotations

from html import escape
from typing import Any

_SHOWN = 20
WHOLE = "moved whole at a canary rung: enabled-replicas is not enforced on their kind"
ORDER = ("which workloads: the first of this input's, label tfpolicy.dev/canary=first, then "
         "namespace, kind, name (docs/stages.md)")


def moved_whole(steps: list[dict[str, Any]]) -> tuple[list[str], list[int]]:
    """Every workload some rung moves whole, in the order first moved, and those steps."""
    names: list[str] = []
    numbers: list[int] = []
    for step in steps:
        whole = (step.get("moved") or {}).get("whole") or []
        names.extend(n for n in whole if n not in names)
        if whole:
            numbers.append(step["number"])
    return names, numbers


def warning_item(steps: list[dict[str, Any]]) -> str:
    """The list item under the verdict; empty when no rung moves a workload whole."""
    names, numbers = moved_whole(steps)
    if not names:
        return ""
    where = ", ".join(f"{n:02d}" for n in numbers)
    return (f"<li class=\"warning moved-whole\" data-text=\"{escape(WHOLE)}\" data-workloads="
            f"\"{len(names)}\">{escape(WHOLE)}, so the rung moves every pod of each (step "
            f"{where}): <i>{_names(names)}</i></li>")


def step_part(step: dict[str, Any]) -> str:
    """A rung's workloads: how many on TensorFusion, moved whole, waiting."""
    moved = step.get("moved")
    if not moved:
        return ""
    parts = [f"<p class=\"moved\" data-tf=\"{moved['tensorFusion']}\" data-total="
             f"\"{moved['total']}\" data-whole=\"{len(moved['whole'])}\" data-waiting="
             f"\"{len(moved['waiting'])}\">Workloads: {moved['tensorFusion']} of "
             f"{moved['total']} on TensorFusion."]
    if moved["whole"]:
        parts.append(f" Moved whole (enabled-replicas is not enforced on their kind): "
                     f"{_names(moved['whole'])}.")
    if moved["waiting"]:
        parts.append(f" Wait for a later rung, left as they are: {_names(moved['waiting'])}.")
    parts.append(f" <span class=\"small\">({escape(ORDER)})</span></p>")
    return "".join(parts)


def _names(names: list[str]) -> str:
    more = f" … and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return ", ".join(escape(n) for n in names[:_SHOWN]) + more
