"""Gates: the application's own health and speed, and the GPUs' health, judging a rung
(docs/gates.md).

Pure: the gates ``.tfpolicy.yaml`` declares (:mod:`.spec`), the workloads verify matched
with their pods on each side (:class:`Subject`), the soak window and Prometheus' answers
in; a :class:`GateResult` per gate and workload out (:func:`results`). Asking Prometheus,
or reading the answers from a file, is the edge's (``tfpolicy.files.gate_metrics``).
"""

from __future__ import annotations

from tfpolicy.gates.answers import Series, series_of
from tfpolicy.gates.records import GateResult, Outcome, Pod, Query, Subject, Window
from tfpolicy.gates.run import Answers, check_metrics, judged, queries, results, snapshot_gates
from tfpolicy.gates.spec import Gate, GateConfig, gate_config
from tfpolicy.gates.window import soak_window

__all__ = ["Answers", "Gate", "GateConfig", "GateResult", "Outcome", "Pod", "Query", "Series",
           "Subject", "Window", "check_metrics", "gate_config", "judged", "queries", "results",
           "series_of", "snapshot_gates", "soak_window"]
