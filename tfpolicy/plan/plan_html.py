"""A plan as one self-contained HTML page: inline CSS and SVG, no script, no network.

The numbers are those of the JSON (``plan_json.plan_dict``), so the page can
never disagree with it; elements that carry a number have an ``id`` or a
``data-`` attribute, which the browser test reads back. Every warning of
every step sits under the verdict it qualifies, grouped by what it says;
then the saving step by step, the GPUs per node (:mod:`html_figures`), a
table per workload and the inputs (:mod:`html_tables`). The page reflows
down to a phone's width: no table or picture is wider than the window.
Every text from the manifests is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from tfpolicy.plan.html_figures import maps, saving
from tfpolicy.plan.html_moved import moved_whole, step_part, warning_item
from tfpolicy.plan.html_tables import Inputs, inputs, workloads
from tfpolicy.plan.plan_json import cost_change, plan_dict
from tfpolicy.plan.step_reports import Plan

__all__ = ["STYLE", "Inputs", "as_html"]

_SHOWN = 20
STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;padding:0 1em;color:#222;
max-width:1200px;overflow-wrap:break-word}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;
max-width:100%}caption{text-align:left;font-weight:600;padding:4px 0}
td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}th{text-align:left}
td.names,#inputs td,td.wrap{text-align:left;overflow-wrap:anywhere}
.fits{color:#176d2c}.fits-warned{color:#a04e00}.does-not-fit{color:#b00020}.not-run{color:#777}
.bar{background:#eee;width:12em;max-width:30vw;height:10px;display:inline-block;
position:relative}
.bar span{position:absolute;left:0;top:0;height:10px;background:#3367d6}
.bar span.limit{background:none;border-right:2px solid #e8710a}
.d{fill:#7b1fa2}.t{fill:#2e7d32}.i{fill:#e0e0e0}.legend rect{stroke:#999}
text{font:11px system-ui,sans-serif}text.small{fill:#555}span.small{color:#555}
.maps{display:flex;gap:2em;flex-wrap:wrap}svg{border:1px solid #ccc;max-width:100%;height:auto}
figure{margin:1em 0;max-width:100%}
section.step{border-left:4px solid #ccc;padding-left:1em;margin:1em 0}
#warnings{border:2px solid #e8710a;background:#fff8e1;padding:0 1em;margin:1em 0}
#warnings h3{margin:.8em 0 .2em}li.warning,li.oversubscribed{margin:.3em 0}
.workloads{display:flex;flex-wrap:wrap;gap:1em 2em}
"""
_CAPS = "enabled-replicas caps that do not hold"
_KINDS = (  # what a warning is about, by the words it uses
    ("GPU requests not migrated or not simulated", ("not simulated", "not migrated",
                                                    "refused", "HAMi")),
    (_CAPS, ("enabled-replicas",)),
    ("other warnings", ()),
)


def as_html(plan: Plan, given: Inputs | None = None) -> str:
    """``given``: the inputs as the command line named them (shown under "Inputs")."""
    data = plan_dict(plan)
    steps = [data["start"], *data["steps"]]
    body = [_header(data, steps), _warnings(steps),
            _summary(data["summary"], cost_change(plan.summary)),
            saving(steps, data["summary"]["gpusTotal"]),
            _consolidation(data.get("consolidation")), maps(plan.map_before, plan.map_after),
            workloads(steps)]
    seen: set[str] = set()
    for step in steps:
        body.append(_step(step, seen))
        seen.update(step["warnings"])
    body.append(inputs(given))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            "<title>tfpolicy plan</title><style>" + STYLE + "</style></head><body>\n"
            + "\n".join(b for b in body if b) + "\n</body></html>\n")


def _header(data: dict[str, Any], steps: list[dict[str, Any]]) -> str:
    s = data["summary"]
    count = (len(_grouped(steps)) + sum(bool(st["oversubscribedGpus"]) for st in steps)
             + bool(moved_whole(steps)[0]))
    if not data["fits"]:
        verdict, css = "a step does not fit", "does-not-fit"
    elif count:
        verdict, css = f"every step fits, with {count} warnings to read first", "fits-warned"
    else:
        verdict, css = "every step fits", "fits"
    return (f"<h1>Migration plan: <span id=\"verdict\" class=\"{css}\" data-fits="
            f"\"{str(data['fits']).lower()}\" data-warnings=\"{count}\">{verdict}</span></h1>"
            f"<p>{len(data['steps'])} steps on <span id=\"gpus-total\">{s['gpusTotal']}</span> "
            f"GPUs in <span id=\"nodes-total\">{s['nodesTotal']}</span> nodes.</p>")


def _summary(s: dict[str, Any], change: str) -> str:
    rows = [("GPUs in use", "gpus", s["gpusBefore"], s["gpusAfter"]),
            ("nodes in use", "nodes", s["nodesBefore"], s["nodesAfter"]),
            ("cost per hour (USD)", "cost", s["costPerHourBefore"], s["costPerHourAfter"])]
    table = "".join(f"<tr><th>{label}</th><td id=\"{key}-before\">{before}</td>"
                    f"<td id=\"{key}-after\">{after}</td></tr>"
                    for label, key, before, after in rows)
    known = {"gpusTotal", "nodesTotal", "gpusBefore", "gpusAfter", "gpusFreed", "nodesBefore",
             "nodesAfter", "nodesFreed", "costPerHourBefore", "costPerHourAfter",
             "costPerHourSaved"}
    # Counts the summary gains later (GPU requests not migrated …) show as they come.
    more = "".join(f"<tr><th>{escape(k)}</th><td id=\"summary-{escape(k)}\" colspan=\"2\">"
                   f"{escape(str(v))}</td></tr>" for k, v in s.items() if k not in known)
    return (f"<h2>Summary</h2><table><tr><th></th><th>before</th><th>after</th></tr>{table}"
            f"{more}</table><p>The plan frees {s['gpusFreed']} GPUs; cost per hour of the GPUs "
            f"in use, before consolidation: <b id=\"cost-change\">{escape(change)}</b>.</p>")


def _grouped(steps: list[dict[str, Any]]) -> dict[str, tuple[list[str], list[int]]]:
    """Warning text → (workloads, steps): ``<workload>: <text>`` as the text report groups."""
    found: dict[str, tuple[list[str], list[int]]] = {}
    for step in steps:
        for warning in step["warnings"]:
            key, _, text = warning.partition(": ")
            who, what = (key, text) if text else ("", key)
            names, numbers = found.setdefault(what, ([], []))
            if who and who not in names:
                names.append(who)
            if step["number"] not in numbers:
                numbers.append(step["number"])
    return found


def _warnings(steps: list[dict[str, Any]]) -> str:
    groups = _grouped(steps)
    over = [st for st in steps if st["oversubscribedGpus"]]
    whole = warning_item(steps)
    if not groups and not over and not whole:
        return ""
    parts = ["<section id=\"warnings\"><h2>Read before approving</h2>"]
    for title, _ in _KINDS:
        mine = [t for t in sorted(groups) if _kind(t) == title]
        extra = whole if title == _CAPS else ""
        if mine or extra:
            parts.append(f"<h3>{title}</h3><ul>" + extra
                         + "".join(_warning(t, *groups[t]) for t in mine) + "</ul>")
    if over:
        parts.append("<h3>Limits oversubscribed</h3><ul>"
                     + "".join(_oversubscribed(st) for st in over) + "</ul>")
    return "".join(parts) + "</section>"


def _kind(text: str) -> str:
    return next(title for title, words in _KINDS if not words or any(w in text for w in words))


def _warning(text: str, names: list[str], numbers: list[int]) -> str:
    shown = ", ".join(escape(n) for n in names[:_SHOWN]) + (
        f" … and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")
    where = ", ".join("start" if n == 0 else f"{n:02d}" for n in numbers)
    who = f" <i>{shown}</i>" if names else ""
    return (f"<li class=\"warning\" data-text=\"{escape(text)}\" data-workloads="
            f"\"{len(names)}\">{escape(text)} (step {where}){':' if names else ''}{who}</li>")


def _oversubscribed(step: dict[str, Any]) -> str:
    gpus = step["oversubscribedGpus"]
    worst_t = max(gpus, key=lambda g: g["tflopsLimit"] / max(g["tflopsVirtual"], 1))
    worst_v = max(gpus, key=lambda g: g["vramLimitMiB"] / max(g["vramVirtualMiB"], 1))
    label = "start" if step["number"] == 0 else f"step {step['number']:02d} {step['name']}"
    return (f"<li class=\"oversubscribed\" data-step=\"{step['number']}\" data-gpus="
            f"\"{len(gpus)}\">{escape(label)}: limits exceed the pool's virtual capacity on "
            f"{len(gpus)} GPUs (up to TFLOPS {worst_t['tflopsLimit']:g}/"
            f"{worst_t['tflopsVirtual']:g}, VRAM {worst_v['vramLimitMiB'] / 1024:g}/"
            f"{worst_v['vramVirtualMiB'] / 1024:g} GiB); limits never block placement, but "
            "pods may be throttled or run out of memory</li>")


def _consolidation(c: dict[str, Any] | None) -> str:
    if c is None:
        return "<h2>Consolidation</h2><p id=\"consolidation\">not run</p>"
    removable = ", ".join(escape(n) for n in c["removable"][:_SHOWN])
    more = f" … and {len(c['removable']) - _SHOWN} more" if len(c["removable"]) > _SHOWN else ""
    listed = f"<p>Removable: {removable}{more}</p>" if c["removable"] else ""
    return ("<h2>Consolidation</h2><p id=\"consolidation\">Nodes in use "
            f"<b id=\"drain-before\">{c['nodesBefore']}</b> → "
            f"<b id=\"drain-after\">{c['nodesAfter']}</b> "
            f"(<b id=\"drain-removable\">{c['nodesRemovable']}</b> removable; lower bound "
            f"<b id=\"drain-bound\">{c['lowerBound']}</b>); frees {c['gpusFreed']} GPUs and "
            f"<b>$<span id=\"drain-cost\">{c['costPerHourFreed']:.2f}</span></b> per hour with "
            f"{c['evictions']} evictions.</p>{listed}")


def _step(step: dict[str, Any], seen: set[str]) -> str:
    """A step's numbers, and the warnings it is the first to give, beside its verdict."""
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
    parts.append(step_part(step))
    parts.append("<table>" + "".join(_pool(p) for p in step["pools"]) + "</table>")
    parts.append(_misfits(step["unschedulable"]))
    fresh = [w for w in step["warnings"] if w not in seen]
    if step["oversubscribedGpus"]:
        parts.append(f"<p class=\"step-oversubscribed\">Limits oversubscribed on "
                     f"{len(step['oversubscribedGpus'])} GPUs (see above).</p>")
    if fresh:
        parts.append("<ul class=\"step-warnings\">" + "".join(
            f"<li>warning: {escape(w)}</li>" for w in fresh[:_SHOWN])
            + (f"<li>… and {len(fresh) - _SHOWN} more</li>" if len(fresh) > _SHOWN else "")
            + "</ul>")
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
