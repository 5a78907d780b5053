"""The plan page's pictures, inline SVG scaled to the page (``viewBox``, ``max-width``).

The heat maps draw every node as a row of GPU cells. Up to ``_LABELLED``
nodes the cells are large, one rectangle per GPU so that they can be
counted, and each row carries its node's name; beyond, cells shrink, runs
of the same user merge into one rectangle and nodes wrap in columns, so
1,000 nodes × 8 GPUs stay one screen and a few hundred kilobytes. The
saving figure is one bar per step: the GPUs in use (device plugin below,
TensorFusion above), with their cost per hour on top.
"""

from __future__ import annotations

from html import escape
from typing import Any

_LABELLED = 64  # nodes up to which each row is named and cells are large
_BIG, _SMALL, _ROWS = 16, 4, 125  # pixels per GPU cell; nodes per column of a small map
_LETTER_PX = 7  # width of a label character at 11 px
_BAR, _CHART_H = 64, 150  # pixels per step bar; height of the bars' area


def maps(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> str:
    legend = ("<svg class=\"legend\" viewBox=\"0 0 330 16\" width=\"330\" height=\"16\">"
              + "".join(f"<rect class=\"{k}\" x=\"{i * 110}\" y=\"3\" width=\"10\" height=\"10\"/>"
                        f"<text x=\"{i * 110 + 14}\" y=\"12\">{label}</text>"
                        for i, (k, label) in enumerate((("d", "device plugin"),
                                                        ("t", "TensorFusion"), ("i", "idle"))))
              + "</svg>")
    return (f"<h2>GPUs per node</h2>{legend}<div class=\"maps\">"
            f"{_map('map-before', 'before', before)}{_map('map-after', 'after', after)}</div>")


def _map(ident: str, title: str, nodes: tuple[tuple[str, str], ...]) -> str:
    named = len(nodes) <= _LABELLED
    cell = _BIG if named else _SMALL
    label = (min(max((len(n) for n, _ in nodes), default=0), 24) * _LETTER_PX + 8) if named else 0
    width = label + max((len(g) for _, g in nodes), default=1) * cell + 6
    rows = len(nodes) if named else _ROWS
    columns = -(-len(nodes) // rows) if nodes else 1
    parts = []
    for n, (node, gpus) in enumerate(nodes):
        x0, y = (n // rows) * width, (n % rows) * cell
        if named:
            parts.append(f"<text class=\"node\" x=\"{x0}\" y=\"{y + cell - 4}\">"
                         f"{escape(node[:24])}</text>")
        parts.extend(_runs(node, gpus, x0 + label, y, cell, merge=not named))
    counts = {k: sum(g.count(k) for _, g in nodes) for k in "dti"}
    data = " ".join(f"data-{name}=\"{counts[k]}\"" for k, name in
                    (("d", "device-plugin"), ("t", "tensor-fusion"), ("i", "idle")))
    w, h = columns * width, max(min(len(nodes), rows), 1) * cell
    return (f"<figure id=\"{ident}\" {data} data-nodes=\"{len(nodes)}\" data-cell=\"{cell}\">"
            f"<figcaption>{title}: {len(nodes)} nodes, {counts['d']} device plugin, "
            f"{counts['t']} TensorFusion, {counts['i']} idle</figcaption>"
            f"<svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\">"
            + "".join(parts) + "</svg></figure>")


def _runs(node: str, gpus: str, x0: int, y: int, cell: int, merge: bool) -> list[str]:
    """One rectangle per GPU, or per run of GPUs with the same user when ``merge``; the
    node's name as its tooltip."""
    rects, start = [], 0
    for i in range(1, len(gpus) + 1):
        if i == len(gpus) or gpus[i] != gpus[start] or not merge:
            rects.append(f"<rect class=\"{gpus[start]}\" x=\"{x0 + start * cell}\" y=\"{y}\" "
                         f"width=\"{(i - start) * cell - 1}\" height=\"{cell - 1}\">"
                         f"<title>{escape(node)}</title></rect>")
            start = i
    return rects


def saving(steps: list[dict[str, Any]], total: int) -> str:
    """GPUs in use and their cost per hour after each step that ran."""
    ran = [s for s in steps if s["gpus"] is not None]
    if not ran:
        return ""
    top = max(total, 1)
    bars = []
    for i, step in enumerate(ran):
        native, tf = step["gpus"]["devicePlugin"], step["gpus"]["tensorFusion"]
        used = native + tf
        h, h_tf = round(_CHART_H * used / top), round(_CHART_H * tf / top)
        x, label = i * _BAR, "start" if step["number"] == 0 else f"{step['number']:02d}"
        tip = (f"<title>{native} device plugin, {tf} TensorFusion GPUs in use, "
               f"${step['costPerHour']:.2f}/h</title>")
        bars.append(f"<g class=\"bar-step\" data-step=\"{step['number']}\" data-gpus=\"{used}\" "
                    f"data-cost=\"{step['costPerHour']:g}\">"
                    f"<rect class=\"d\" x=\"{x + 8}\" y=\"{20 + _CHART_H - h}\" "
                    f"width=\"{_BAR - 16}\" height=\"{h - h_tf}\">{tip}</rect>"
                    f"<rect class=\"t\" x=\"{x + 8}\" y=\"{20 + _CHART_H - h_tf}\" "
                    f"width=\"{_BAR - 16}\" height=\"{h_tf}\">{tip}</rect>"
                    f"<text x=\"{x + _BAR // 2}\" y=\"{14 + _CHART_H - h}\" "
                    f"text-anchor=\"middle\">${step['costPerHour']:.2f}</text>"
                    f"<text x=\"{x + _BAR // 2}\" y=\"{_CHART_H + 36}\" text-anchor=\"middle\">"
                    f"{label}</text><text x=\"{x + _BAR // 2}\" y=\"{_CHART_H + 50}\" "
                    f"text-anchor=\"middle\" class=\"small\">{used} GPUs</text></g>")
    width, height = len(ran) * _BAR, _CHART_H + 56
    return (f"<figure id=\"saving\"><figcaption>GPUs in use after each step, and their cost "
            f"per hour (of {total} GPUs)</figcaption><svg viewBox=\"0 0 {width} {height}\" "
            f"width=\"{width}\" height=\"{height}\">{''.join(bars)}</svg></figure>")
