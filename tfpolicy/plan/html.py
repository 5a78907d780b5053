"""A plan as one self-contained HTML page: inline CSS and SVG, no script, no network.

The numbers are those of the JSON (``render.plan_dict``), so the page can
never disagree with it; elements that carry a number have an ``id`` or a
``data-`` attribute, which the browser test reads back. The heat maps draw
every node as a row of GPU cells, runs of the same user merged into one
rectangle, nodes wrapped in columns: 1,000 nodes × 8 GPUs stay one screen
and a few hundred kilobytes. Every text from the manifests is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from tfpolicy.plan.records import Plan
from tfpolicy.plan.render import plan_dict

_CELL, _ROWS = 4, 125  # pixels per GPU cell; nodes per heat-map column
_SHOWN = 20
STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse}
td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}th{text-align:left}
.fits{color:#176d2c}.does-not-fit{color:#b00020}.not-run{color:#777}
.bar{background:#eee;width:300px;height:10px;display:inline-block;position:relative}
.bar span{position:absolute;left:0;top:0;height:10px;background:#3367d6}
.bar span.limit{background:none;border-right:2px solid #e8710a}
.d{fill:#7b1fa2}.t{fill:#2e7d32}.i{fill:#e0e0e0}.legend rect{stroke:#999}
.maps{display:flex;gap:2em;flex-wrap:wrap}svg{border:1px solid #ccc}
section.step{border-left:4px solid #ccc;padding-left:1em;margin:1em 0}
"""


def as_html(plan: Plan) -> str:
    data = plan_dict(plan)
    body = [_header(data), _consolidation(data.get("consolidation")), _maps(plan)]
    body += [_step(s) for s in (data["start"], *data["steps"])]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>tfpolicy plan</title><style>" + STYLE + "</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _header(data: dict[str, Any]) -> str:
    s = data["summary"]
    verdict = "every step fits" if data["fits"] else "a step does not fit"
    rows = [("GPUs in use", "gpus", s["gpusBefore"], s["gpusAfter"]),
            ("nodes in use", "nodes", s["nodesBefore"], s["nodesAfter"]),
            ("cost per hour (USD)", "cost", s["costPerHourBefore"], s["costPerHourAfter"])]
    table = "".join(f"<tr><th>{label}</th><td id=\"{key}-before\">{before}</td>"
                    f"<td id=\"{key}-after\">{after}</td></tr>"
                    for label, key, before, after in rows)
    css = "fits" if data["fits"] else "does-not-fit"
    return (f"<h1>Migration plan: <span id=\"verdict\" class=\"{css}\">{verdict}</span></h1>"
            f"<p>{len(data['steps'])} steps on <span id=\"gpus-total\">{s['gpusTotal']}</span> "
            f"GPUs in <span id=\"nodes-total\">{s['nodesTotal']}</span> nodes.</p>"
            f"<table><tr><th></th><th>before</th><th>after</th></tr>{table}</table>")


def _consolidation(c: dict[str, Any] | None) -> str:
    if c is None:
        return "<h2>Consolidation</h2><p id=\"consolidation\">not run</p>"
    removable = ", ".join(escape(n) for n in c["removable"][:_SHOWN])
    more = f" … and {len(c['removable']) - _SHOWN} more" if len(c["removable"]) > _SHOWN else ""
    return ("<h2>Consolidation</h2><p id=\"consolidation\">Nodes in use "
            f"<b id=\"drain-before\">{c['nodesBefore']}</b> → "
            f"<b id=\"drain-after\">{c['nodesAfter']}</b> "
            f"(<b id=\"drain-removable\">{c['nodesRemovable']}</b> removable; lower bound "
            f"<b id=\"drain-bound\">{c['lowerBound']}</b>); frees {c['gpusFreed']} GPUs and "
            f"<b id=\"drain-cost\">{c['costPerHourFreed']}</b> USD per hour with "
            f"{c['evictions']} evictions.</p><p>Removable: {removable}{more}</p>")


def _maps(plan: Plan) -> str:
    legend = ("<svg class=\"legend\" width=\"330\" height=\"16\">"
              + "".join(f"<rect class=\"{k}\" x=\"{i * 110}\" y=\"3\" width=\"10\" height=\"10\"/>"
                        f"<text x=\"{i * 110 + 14}\" y=\"12\">{label}</text>"
                        for i, (k, label) in enumerate((("d", "device plugin"),
                                                        ("t", "TensorFusion"), ("i", "idle"))))
              + "</svg>")
    return (f"<h2>GPUs per node</h2>{legend}<div class=\"maps\">"
            f"{_map('map-before', 'before', plan.map_before)}"
            f"{_map('map-after', 'after', plan.map_after)}</div>")


def _map(ident: str, title: str, nodes: tuple[tuple[str, str], ...]) -> str:
    width = max((len(g) for _, g in nodes), default=1) * _CELL + 6
    columns = -(-len(nodes) // _ROWS) or 1
    rects = []
    for n, (node, gpus) in enumerate(nodes):
        x0, y = (n // _ROWS) * width, (n % _ROWS) * _CELL
        start = 0
        for i in range(1, len(gpus) + 1):
            if i == len(gpus) or gpus[i] != gpus[start]:
                rects.append(f"<rect class=\"{gpus[start]}\" x=\"{x0 + start * _CELL}\" y=\"{y}\" "
                             f"width=\"{(i - start) * _CELL - 1}\" height=\"{_CELL - 1}\">"
                             f"<title>{escape(node)}</title></rect>")
                start = i
    counts = {k: sum(g.count(k) for _, g in nodes) for k in "dti"}
    data = " ".join(f"data-{name}=\"{counts[k]}\"" for k, name in
                    (("d", "device-plugin"), ("t", "tensor-fusion"), ("i", "idle")))
    return (f"<figure id=\"{ident}\" {data}><figcaption>{title}: {len(nodes)} nodes, "
            f"{counts['d']} device plugin, {counts['t']} TensorFusion, {counts['i']} idle"
            f"</figcaption><svg width=\"{columns * width}\" "
            f"height=\"{min(len(nodes), _ROWS) * _CELL}\">"
            + "".join(rects) + "</svg></figure>")


def _step(step: dict[str, Any]) -> str:
    title = "start (the manifests as they are)" if step["number"] == 0 else (
        f"step {step['number']:02d} {escape(step['name'])}")
    parts = [f"<section class=\"step\" data-step=\"{step['number']}\" "
             f"data-status=\"{step['status']}\"><h2>{title}: "
             f"<span class=\"{step['status']}\">{step['status']}</span></h2>"]
    if step["status"] == "not-run":
        return parts[0] + "</section>"
    gpus = step["gpus"] or {}
    parts.append(f"<p>GPUs: <span data-k=\"device-plugin\">{gpus.get('devicePlugin', 0)}</span> "
                 f"device plugin, <span data-k=\"tensor-fusion\">{gpus.get('tensorFusion', 0)}"
                 f"</span> TensorFusion, <span data-k=\"idle\">{gpus.get('idle', 0)}</span> idle; "
                 f"nodes in use {step['nodesInUse']}</p>")
    parts.append(_rolled(step["rolled"]))
    parts.append("<table>" + "".join(_pool(p) for p in step["pools"]) + "</table>")
    parts.append(_misfits(step["unschedulable"]))
    return "".join(parts) + "</section>"


def _rolled(rolled: list[str]) -> str:
    if not rolled:
        return ""
    more = f" … and {len(rolled) - _SHOWN} more" if len(rolled) > _SHOWN else ""
    names = ", ".join(escape(w) for w in rolled[:_SHOWN])
    return f"<p>Rolls <span class=\"rolled\">{len(rolled)}</span> workloads: {names}{more}</p>"


def _pool(p: dict[str, Any]) -> str:
    """Requests as a bar, limits as a mark, both against the physical capacity."""
    cells = []
    for key, unit, scale in (("tflops", "TFLOPS", 1), ("vramMiB", "GiB VRAM", 1024)):
        v = p[key]
        cap = v["capacity"] or 1
        req, lim = min(100 * v["requested"] / cap, 100), min(100 * v["limit"] / cap, 100)
        cells.append(f"<td><span class=\"bar\"><span style=\"width:{req:.1f}%\"></span>"
                     f"<span class=\"limit\" style=\"width:{lim:.1f}%\"></span></span> "
                     f"{v['requested'] / scale:g} / {v['capacity'] / scale:g} {unit} "
                     f"(limits {v['limit'] / scale:g})</td>")
    return f"<tr><th>pool {escape(p['name'])}</th>{''.join(cells)}</tr>"


def _misfits(misfits: list[dict[str, Any]]) -> str:
    if not misfits:
        return ""
    items = "".join(f"<li class=\"misfit\">{escape(m['pod'] or '')} of {escape(m['workload'])}: "
                    f"{escape(m['message'])}</li>" for m in misfits[:_SHOWN])
    more = f"<li>… and {len(misfits) - _SHOWN} more</li>" if len(misfits) > _SHOWN else ""
    return (f"<h3>Does not fit: <span class=\"misfits\">{len(misfits)}</span> workloads wait"
            f"</h3><ul>{items}{more}</ul>")
