"""A verify report as one self-contained HTML page: inline CSS, no script, no network.

The page is drawn from the JSON (``report_render.report_dict``), so it can never
disagree with it; every element that carries a number or a verdict has an
``id`` or a ``data-`` attribute, which the browser test reads back. It
takes the plan report's stylesheet, so both pages look alike. Every text
from the cluster or the manifests is escaped.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from tfpolicy.plan.plan_html import STYLE as _PLAN_STYLE
from tfpolicy.verify.gates_html import STYLE as _GATES_STYLE
from tfpolicy.verify.gates_html import gates_section
from tfpolicy.verify.report_render import problems_first, report_dict
from tfpolicy.verify.verdicts import Report

_STYLE = _PLAN_STYLE + """
.ready{color:#176d2c}.wait{color:#e8710a}.stop{color:#b00020}
tr.off td,tr.off th{background:#fde7e9}li.stop{color:#b00020}li.wait{color:#a04e00}
table.pods td,table.pods th,#gpus td:nth-child(n+2){text-align:left}
.name,td.wrap.name{overflow-wrap:break-word;word-break:normal}
#gpus td,#gpus th{padding:2px 4px}
section.workload{border-left:4px solid #ccc;padding-left:1em;margin:1em 0}
section.workload[data-verdict=ready]{border-color:#176d2c}
section.workload[data-verdict=wait]{border-color:#e8710a}
section.workload[data-verdict=stop]{border-color:#b00020}
""" + _GATES_STYLE
# Where a Kubernetes name may break: after the separators of its parts (pod names are
# <workload>-<hash>-<suffix>, GPUs <node>-<index>, workloads Kind/namespace/name).
_SEPARATOR = re.compile(r"([-./])")
_RANK = {"stop": 2, "wait": 1, "ready": 0}
_GATE_RANK = {"stop": "stop", "wait": "wait", "pass": "ready"}  # a gate that passes is ready
_WHY = {"ready": "every workload and every GPU shows what the plan expects: go on with the "
                 "next step",
        "wait": "the rollout is still in progress: verify again later",
        "stop": "something went wrong: roll back"}


def as_html(report: Report) -> str:
    data = report_dict(report)
    body = [_shows(data["shows"]), _header(data), _cluster(data["cluster"])]
    body += [_workload(w) for w in problems_first(data["workloads"], _rank)]
    body.append(_gpus(data["gpus"]))
    body.append(_savings(data["savings"]))
    body.append(gates_section(data["gates"]))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            "<title>tfpolicy verify</title><style>" + _STYLE + "</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _shows(shows: dict[str, Any] | None) -> str:
    if shows is None:
        return ""
    return (f"<p id=\"shows\" class=\"wait\" data-step=\"{shows['step']}\"><b>"
            f"{escape(shows['message'])}</b></p>")


def _name(text: str) -> str:
    """A name, escaped, that wraps after its separators rather than inside its words: a
    ``<wbr>`` after each, and the ``name`` class that breaks a word only when one part is
    wider than its cell."""
    return _SEPARATOR.sub(r"\1<wbr>", escape(text))


def _rank(item: dict[str, Any]) -> int:
    return _RANK[item["verdict"]]


def _header(data: dict[str, Any]) -> str:
    """The verdict, then the count of each part's verdicts, so that the step's verdict (the
    worst part) is always among the counts: a stop from a GPU shows as a GPU stop."""
    verdict = data["verdict"]
    parts = {"workloads": [w["verdict"] for w in data["workloads"]],
             "gpus": [g["verdict"] for g in data["gpus"]],
             "cluster": [p["verdict"] for p in data["cluster"]],
             "gates": [_GATE_RANK[g["verdict"]] for g in data["gates"]
                       if g["verdict"] != "unmeasured"]}
    tally = {part: ", ".join(f"<span id=\"{part}-{v}\">{verdicts.count(v)}</span> {v}"
                             for v in _RANK) for part, verdicts in parts.items()}
    cluster = f"; cluster: {tally['cluster']}" if parts["cluster"] else ""
    cluster += f"; gates: {tally['gates']}" if parts["gates"] else ""
    rollback = ("" if data["rollback"] is None else
                f"<p>Rollback: apply <b id=\"rollback\">{escape(data['rollback'])}</b></p>")
    return (f"<h1>Verify step {escape(data['step'])}: <span id=\"verdict\" class=\"{verdict}\">"
            f"{verdict}</span></h1><p id=\"why\">{_WHY[verdict]}.</p>{rollback}"
            f"<p id=\"tally\">Workloads: {tally['workloads']}; GPUs: <span id=\"gpus-checked\">"
            f"{len(data['gpus'])}</span> checked, <span id=\"gpus-off\">"
            f"{len(parts['gpus']) - parts['gpus'].count('ready')}</span> disagree with the plan"
            f" ({tally['gpus']}){cluster}.</p>{_origin(data['snapshot'])}")


def _origin(origin: dict[str, Any]) -> str:
    latest = origin["latest"] or "no time in its objects"
    return (f"<p id=\"snapshot\">Snapshot <b id=\"snapshot-source\">"
            f"{escape(origin['source'] or 'given')}</b>, its latest object time "
            f"<b id=\"snapshot-latest\">{escape(latest)}</b>; GPU pools "
            f"<b id=\"snapshot-pools\">{escape(', '.join(origin['pools']) or 'none')}</b>, "
            f"GPU nodes <b id=\"snapshot-nodes\">{origin['gpuNodes']}</b>.</p>"
            f"{_outliers(origin)}")


def _outliers(origin: dict[str, Any]) -> str:
    times = origin["outlierTimes"]
    if not times:
        return ""
    return (f"<p id=\"snapshot-outliers\" class=\"wait\" data-count=\"{len(times)}\">"
            f"{len(times)} object times set aside, {escape(origin['outlierRule'])}: "
            f"{escape(', '.join(times))}</p>")


def _cluster(problems: list[dict[str, str]]) -> str:
    if not problems:
        return ""
    return "<h2>Cluster</h2>" + _problems(problems)


def _problems(problems: list[dict[str, str]]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li class=\"{p['verdict']}\" data-verdict=\"{p['verdict']}\">"
                    f"{p['verdict']}: <b class=\"name\">{_name(p['subject'])}</b>: "
                    f"{escape(p['message'])}</li>"
                    for p in problems)
    return f"<ul class=\"problems\">{items}</ul>"


def _workload(w: dict[str, Any]) -> str:
    tf, native = w["tensorFusionPods"], w["nativePods"]
    pods = {p["name"] for p in w["pods"]}  # their problems are in the pods' table
    counts = (f"<p class=\"counts\">TensorFusion pods: <span data-k=\"tf-seen\">"
              f"{tf['seen']}</span> in the cluster, <span data-k=\"tf-expected\">{tf['expected']}"
              f"</span> expected by the step; native pods: <span data-k=\"native-seen\">"
              f"{native['seen']}</span> in the cluster, <span data-k=\"native-expected\">"
              f"{native['expected']}</span> expected</p>")
    return (f"<section class=\"workload\" data-workload=\"{escape(w['workload'])}\" "
            f"data-verdict=\"{w['verdict']}\"><h2><span class=\"name\">"
            f"{_name(w['workload'])}</span>: "
            f"<span class=\"{w['verdict']}\">{w['verdict']}</span></h2>{counts}"
            f"{_problems([p for p in w['problems'] if p['subject'] not in pods])}"
            f"{_pods(w['pods'], w['problems'])}"
            f"{_replicasets(w['replicaSets'])}</section>")


def _pods(pods: list[dict[str, Any]], problems: list[dict[str, str]]) -> str:
    if not pods:
        return "<p>No pod of this workload in the snapshot.</p>"
    why = {p["subject"]: p for p in problems}
    rows = []
    for pod in pods:
        kind = "tensor-fusion" if pod["tensorFusion"] else "native"
        problem = why.get(pod["name"])
        css = f" class=\"{problem['verdict']}\"" if problem else ""
        rows.append(f"<tr data-pod=\"{escape(pod['name'])}\" data-kind=\"{kind}\" "
                    f"data-status=\"{escape(pod['status'])}\"{css}><th class=\"name\">"
                    f"{_name(pod['name'])}</th>"
                    f"<td>{'TensorFusion' if pod['tensorFusion'] else 'native'}</td>"
                    f"<td>{escape(pod['status'])}</td><td class=\"wrap name\">"
                    f"{_name(', '.join(pod['gpus']))}</td><td class=\"wrap\">"
                    f"{escape(problem['message']) if problem else ''}</td></tr>")
    return ("<table class=\"pods\"><tr><th>pod</th><th>kind</th><th>status</th><th>GPUs</th>"
            "<th>reason</th></tr>" + "".join(rows) + "</table>")


def _replicasets(sets: list[dict[str, Any]]) -> str:
    if not sets:
        return ""
    rows = []
    for r in sets:
        off = " class=\"off\"" if r["replicas"] and r["role"] == "old" else ""
        rows.append(f"<tr data-replicaset=\"{escape(r['name'])}\" data-replicas=\"{r['replicas']}\""
                    f" data-role=\"{r['role']}\"{off}><th class=\"name\">{_name(r['name'])}</th>"
                    f"<td>revision {r['revision']}</td><td>{r['replicas']} pods</td>"
                    f"<td>{r['role']}</td></tr>")
    return f"<h3>ReplicaSets</h3><table class=\"replicasets\">{''.join(rows)}</table>"


def _gpus(gpus: list[dict[str, Any]]) -> str:
    rows = []
    for g in sorted(gpus, key=lambda g: (g["node"], g["name"])):
        has, want = g["available"], g["expected"]
        css = " class=\"off\"" if g["verdict"] != "ready" else ""
        rows.append(f"<tr data-gpu=\"{escape(g['name'])}\" data-node=\"{escape(g['node'])}\" "
                    f"data-verdict=\"{g['verdict']}\" "
                    f"data-available-tflops=\"{has['tflops']:g}\" "
                    f"data-expected-tflops=\"{want['tflops']:g}\" "
                    f"data-available-vram=\"{has['vramMiB']}\" "
                    f"data-expected-vram=\"{want['vramMiB']}\" "
                    f"data-partitions=\"{len(g['partitions'])}\"{css}>"
                    f"<th class=\"name\">{_name(g['name'])}</th><td class=\"name\">"
                    f"{_name(g['node'])}</td>"
                    f"<td>{has['tflops']:g}</td><td>{want['tflops']:g}</td>"
                    f"<td>{has['vramMiB']}</td><td>{want['vramMiB']}</td>"
                    f"<td class=\"name\">{_name(', '.join(g['pods']))}</td>"
                    f"<td class=\"name\">{_name('; '.join(g['partitions']))}</td>"
                    f"<td>{escape(g['message'] or '')}</td></tr>")
    return ("<h2>GPU ledger: the cluster against the plan, by node</h2><table id=\"gpus\">"
            "<tr><th>GPU</th><th>node</th><th>TFLOPS available</th><th>plan</th>"
            "<th>VRAM MiB available</th><th>plan</th><th>pods</th><th>partitions</th>"
            "<th>why</th></tr>" + "".join(rows) + "</table>")


def _savings(savings: dict[str, Any] | None) -> str:
    """The capacity a rightsize step frees, in the cluster and in the plan (none elsewhere)."""
    if savings is None:
        return ""
    warning = savings["warning"]
    rows = "".join(f"<tr><th>{label}</th><td id=\"savings-{key}\">{savings[key]}</td>"
                   f"<td id=\"savings-{planned}\">{savings[planned]}</td></tr>"
                   for label, key, planned in (("GPUs free", "gpusFree", "plannedGpusFree"),
                                               ("GPU nodes free", "nodesFree",
                                                "plannedNodesFree")))
    said = (f"<p id=\"savings-warning\" class=\"wait\">warning: {escape(warning)}</p>"
            if warning else "")
    return (f"<section id=\"savings\" data-warning=\"{'yes' if warning else 'no'}\">"
            "<h2>Savings: what the step frees, in the cluster and in the plan</h2><table>"
            "<tr><th></th><th>in the cluster</th><th>the plan promises</th></tr>"
            f"{rows}</table>{said}</section>")
