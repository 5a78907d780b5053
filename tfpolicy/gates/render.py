"""A rung's gate table as JSON data, text lines and Markdown (docs/gates.md, "Reports").

Values are shown to four significant digits in text; JSON carries them as measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfpolicy.gates.records import GateResult, Outcome


def gate_dict(result: GateResult) -> dict[str, Any]:
    return {"gate": result.gate, "workload": result.workload, "verdict": result.word,
            "builtin": result.builtin, "bound": result.bound, "message": result.message,
            "tensorFusion": {"value": result.tensor_fusion, "pods": list(result.tf_pods),
                             "samples": result.samples[0]},
            "baseline": {"value": result.baseline, "kind": result.baseline_kind,
                         "pods": list(result.baseline_pods), "samples": result.samples[1]},
            "series": {"tensorFusion": [list(p) for p in result.tf_series],
                       "baseline": [list(p) for p in result.baseline_series]}}


def tally(results: Sequence[GateResult]) -> str:
    words = [r.word for r in results]
    counts = ", ".join(f"{words.count(w)} {w}" for w in ("stop", "wait", "pass"))
    unmeasured = words.count("unmeasured")
    more = f"; {unmeasured} built-in not measured (no data)" if unmeasured else ""
    return f"gates: {len(results) - unmeasured} judged ({counts}){more}"


def text_lines(results: Sequence[GateResult]) -> list[str]:
    """One line per gate and workload, the failing first, then its reason; a built-in
    gate that holds is one line for all the workloads it holds on (JSON keeps each)."""
    if not results:
        return []
    lines = [tally(results)]
    held = [r for r in results if r.builtin and r.outcome is Outcome.PASS]
    for r in sorted((r for r in results if r not in held), key=lambda r: -r.outcome):
        lines.append(f"  {r.word}: {r.gate} on {r.workload}: TensorFusion "
                     f"{_value(r.tensor_fusion)}, baseline {_value(r.baseline)} "
                     f"({r.baseline_kind or 'none'}), bound {r.bound}, pods "
                     f"{len(r.tf_pods)}/{len(r.baseline_pods)}")
        lines.append(f"    {r.message}")
    for gate in sorted({r.gate for r in held}):
        same = [r for r in held if r.gate == gate]
        lines.append(f"  pass: {gate} on {len(same)} workloads "
                     f"({sum(len(r.tf_pods) for r in same)} TensorFusion pods): "
                     f"{same[0].message.removeprefix('holds: ')}")
    return lines


def markdown_table(results: Sequence[GateResult]) -> list[str]:
    if not results:
        return []
    rows = [f"### Gates: {tally(results)[len('gates: '):]}", "",
            "| gate | workload | TensorFusion | baseline | which baseline | bound | pods "
            "(TensorFusion/baseline) | verdict |", "|---|---|---|---|---|---|---|---|"]
    rows += [f"| {r.gate} | `{r.workload}` | {_value(r.tensor_fusion)} | {_value(r.baseline)} "
             f"| {_cell(r.baseline_kind or 'none')} | {_cell(r.bound)} | "
             f"{len(r.tf_pods)}/{len(r.baseline_pods)} | {r.word} |" for r in results]
    return rows


def reasons(results: Sequence[GateResult], outcome: Outcome) -> list[str]:
    """The gates of one outcome, one line each: for promote's decision and commit."""
    return [f"gate {r.gate} on {r.workload}: {r.message}" for r in results
            if r.outcome is outcome]


def _value(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
