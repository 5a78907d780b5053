"""The plan page's tables: per workload its pods, GPUs or shares and nodes step by step, and
the inputs the plan was made from."""

from __future__ import annotations

from html import escape
from typing import Any

from tfpolicy import __version__
from tfpolicy.records import Record

_WORKLOADS = 200  # tables drawn; the JSON has every workload
_NODES = 4  # node names per cell


class Inputs(Record):
    """What the plan was made from, as the command line named it."""

    policies: str = ""
    inventory: str = ""
    values: str = ""
    operator: tuple[str, ...] = ()
    manifests: tuple[str, ...] = ()
    steps: str = ""


def workloads(steps: list[dict[str, Any]]) -> str:
    ran = [s for s in steps if s["gpus"] is not None]
    names = sorted({w["workload"] for s in ran for w in s["workloads"]})
    if not names:
        return ""
    tables = "".join(_table(name, ran) for name in names[:_WORKLOADS])
    more = (f"<p>… and {len(names) - _WORKLOADS} more workloads (every one is in "
            "<code>--format json</code>)</p>" if len(names) > _WORKLOADS else "")
    return (f"<h2>Workloads, step by step</h2><p>Pods placed after each step, the GPUs they "
            f"hold whole (device plugin, <code>shared</code>) or the shares they request "
            f"(TFLOPS and VRAM, summed over their GPUs), and their nodes.</p>"
            f"<div class=\"workloads\">{tables}</div>{more}")


def _table(name: str, steps: list[dict[str, Any]]) -> str:
    rows = []
    for step in steps:
        use = next((w for w in step["workloads"] if w["workload"] == name), None)
        label = "start" if step["number"] == 0 else f"{step['number']:02d} {step['name']}"
        rows.append(_row(label, step["number"], use))
    return (f"<table class=\"workload\" data-workload=\"{escape(name)}\"><caption>"
            f"{escape(name)}</caption><tr><th>step</th><th>TensorFusion pods</th>"
            f"<th>device-plugin pods</th><th>whole GPUs</th><th>TFLOPS</th><th>VRAM GiB</th>"
            f"<th>nodes</th></tr>{''.join(rows)}</table>")


def _row(label: str, number: int, use: dict[str, Any] | None) -> str:
    if use is None:
        return (f"<tr data-step=\"{number}\" data-tf=\"0\" data-dp=\"0\" data-whole=\"0\">"
                f"<th>{escape(label)}</th><td colspan=\"6\">no pod placed</td></tr>")
    nodes = use["nodes"]
    shown = ", ".join(escape(n) for n in nodes[:_NODES]) + (
        f" … and {len(nodes) - _NODES} more" if len(nodes) > _NODES else "")
    return (f"<tr data-step=\"{number}\" data-tf=\"{use['tensorFusionPods']}\" "
            f"data-dp=\"{use['devicePluginPods']}\" data-whole=\"{use['wholeGpus']}\" "
            f"data-tflops=\"{use['tflops']:g}\" data-vram=\"{use['vramMiB']}\" "
            f"data-nodes=\"{len(nodes)}\"><th>{escape(label)}</th>"
            f"<td>{use['tensorFusionPods']}</td><td>{use['devicePluginPods']}</td>"
            f"<td>{use['wholeGpus']}</td><td>{use['tflops']:g}</td>"
            f"<td>{round(use['vramMiB'] / 1024, 2):g}</td><td class=\"names\">{shown}</td></tr>")


def inputs(given: Inputs | None) -> str:
    given = given or Inputs()
    rows = [("policies", "policies", given.policies or "(.tfpolicy.yaml)"),
            ("inventory", "inventory", given.inventory),
            ("operator configuration", "operator",
             ", ".join([*([f"--values {given.values}"] if given.values else []),
                        *given.operator]) or "the Helm chart's defaults"),
            ("manifests", "manifests", ", ".join(given.manifests) or "(stdin)"),
            ("steps", "steps", given.steps),
            ("tfpolicy version", "version", __version__)]
    cells = "".join(f"<tr><th>{label}</th><td id=\"input-{key}\">{escape(value)}</td></tr>"
                    for label, key, value in rows)
    return f"<h2>Inputs</h2><table id=\"inputs\">{cells}</table>"
