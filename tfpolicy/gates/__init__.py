"""Gates: the application's own health and speed, and the GPUs' health, judging a rung
(docs/gates.md).

Pure: the gates ``.tfpolicy.yaml`` declares (:mod:`.spec`), the workloads verify matched
with their pods on each side (:class:`Subject`), the soak window and Prometheus' answers
in; a :class:`GateResult` per gate and workload out (:func:`results`). Asking Prometheus,
or reading the answers from a file, is the edge's (``tfpolicy.files.gate_metrics``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tfpolicy.gates.answers import Series, series_of
    from tfpolicy.gates.records import GateResult, Outcome, Pod, Query, Subject, Window
    from tfpolicy.gates.run import (
        Answers,
        check_metrics,
        judged,
        queries,
        results,
        snapshot_gates,
    )
    from tfpolicy.gates.spec import Gate, GateConfig, gate_config
    from tfpolicy.gates.window import soak_window

__all__ = ["Answers", "Gate", "GateConfig", "GateResult", "Outcome", "Pod", "Query", "Series",
           "Subject", "Window", "check_metrics", "gate_config", "judged", "queries", "results",
           "series_of", "snapshot_gates", "soak_window"]

# Where each name lives. Imported on first use: every run reads ``.tfpolicy.yaml``, whose
# ``gates:`` only needs :mod:`.spec`; the judging modules load when a gate is judged.
_HOMES = {"Series": "answers", "series_of": "answers", "GateResult": "records",
          "Outcome": "records", "Pod": "records", "Query": "records", "Subject": "records",
          "Window": "records", "Answers": "run", "check_metrics": "run", "judged": "run",
          "queries": "run", "results": "run", "snapshot_gates": "run", "Gate": "spec",
          "GateConfig": "spec", "gate_config": "spec", "soak_window": "window"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
