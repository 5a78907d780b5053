"""The gate table of verify's HTML page, each gate's two series drawn as a small inline SVG
chart (no script): the TensorFusion pods' mean at each step against the baseline's, over
the window, so a reviewer sees the canary and the baseline side by side (docs/gates.md).

Drawn from the JSON's ``gates`` entries, as the rest of the page is; every value shown
is also in a ``data-`` attribute the browser test reads back.
"""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = """
div.gates-wide{overflow-x:auto;max-width:100%}
#gates td,#gates th{text-align:left;vertical-align:top}
svg.chart{background:#fafafa;border:1px solid #ddd;width:240px;height:64px;max-width:none}
#gates td.chart{min-width:244px}
svg.chart .tf{stroke:#b00020;fill:none;stroke-width:1.5}
svg.chart .base{stroke:#1a56c4;fill:none;stroke-width:1.5;stroke-dasharray:4 2}
.key-tf{color:#b00020}.key-base{color:#1a56c4}
"""
_W, _H, _PAD = 240, 64, 4


def gates_section(gates: list[dict[str, Any]]) -> str:
    if not gates:
        return ""
    rows = "".join(_row(g) for g in gates)
    return ("<h2>Gates: the application's own health and speed</h2><p>Chart: "
            "<span class=\"key-tf\">TensorFusion pods</span> against the "
            "<span class=\"key-base\">baseline</span> over the window (mean of each side's "
            "pods at each step).</p><div class=\"gates-wide\"><table id=\"gates\"><tr>"
            "<th>gate</th><th>workload</th>"
            "<th>TensorFusion</th><th>baseline</th><th>which baseline</th><th>bound</th>"
            "<th>pods</th><th>verdict</th><th>chart</th></tr>" + rows + "</table></div>")


def _row(g: dict[str, Any]) -> str:
    tf, base = g["tensorFusion"], g["baseline"]
    css = " class=\"off\"" if g["verdict"] in ("stop", "wait") else ""
    return (f"<tr data-gate=\"{escape(g['gate'])}\" data-workload=\"{escape(g['workload'])}\" "
            f"data-verdict=\"{g['verdict']}\" data-tf-value=\"{_attr(tf['value'])}\" "
            f"data-baseline-value=\"{_attr(base['value'])}\" data-tf-pods=\"{len(tf['pods'])}\" "
            f"data-baseline-pods=\"{len(base['pods'])}\"{css}><th>{escape(g['gate'])}</th>"
            f"<td>{escape(g['workload'])}</td><td>{_shown(tf['value'])}</td>"
            f"<td>{_shown(base['value'])}</td><td>{escape(base['kind'] or 'none')}</td>"
            f"<td>{escape(g['bound'])}</td><td>{len(tf['pods'])} / {len(base['pods'])}</td>"
            f"<td class=\"{_css(g['verdict'])}\">{g['verdict']}: {escape(g['message'])}</td>"
            f"<td class=\"chart\">{_chart(g['series'])}</td></tr>")


def _chart(series: dict[str, list[list[float]]]) -> str:
    tf, base = series["tensorFusion"], series["baseline"]
    points = tf + base
    if not points:
        return "<span class=\"none\">no series</span>"
    span = max(p[0] for p in points) or 1
    low, high = min(p[1] for p in points), max(p[1] for p in points)
    lines = "".join(f"<polyline class=\"{css}\" data-points=\"{len(side)}\" "
                    f"points=\"{_path(side, span, low, high)}\"/>"
                    for css, side in (("tf", tf), ("base", base)) if side)
    return (f"<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{_W}\" "
            f"height=\"{_H}\" viewBox=\"0 0 {_W} {_H}\" role=\"img\" data-low=\"{low:g}\" "
            f"data-high=\"{high:g}\"><title>{low:.4g} to {high:.4g}</title>{lines}</svg>")


def _path(side: list[list[float]], span: float, low: float, high: float) -> str:
    scale = (high - low) or 1.0
    return " ".join(f"{_PAD + (_W - 2 * _PAD) * t / span:.1f},"
                    f"{_H - _PAD - (_H - 2 * _PAD) * (v - low) / scale:.1f}" for t, v in side)


def _attr(value: float | None) -> str:
    return "" if value is None else repr(value)


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _css(verdict: str) -> str:
    return {"pass": "ready", "wait": "wait", "stop": "stop", "unmeasured": "none"}[verdict]
