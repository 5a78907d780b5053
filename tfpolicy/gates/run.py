"""A rung's gates from end to end, pure: which metrics must exist, which range queries to
ask, and the results once the edge has their answers (``tfpolicy.files.gate_metrics``).

Gates judge the workloads the rung runs TensorFusion pods of; a gate with ``workloads``
globs judges those whose ``namespace/name`` matches one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from tfpolicy.errors import TfpolicyError
from tfpolicy.gates.answers import Series
from tfpolicy.gates.builtin import FB_USED, XID, builtin_query, restarts, vram_limit, xid_errors
from tfpolicy.gates.judge import judge_gate
from tfpolicy.gates.promql import unknown_metric
from tfpolicy.gates.records import GateResult, Outcome, Query, Subject, Window
from tfpolicy.gates.spec import Gate, GateConfig

Answers = Mapping[str, Sequence[Series]]  # Query.key → its series


def check_metrics(config: GateConfig, known: frozenset[str], file: str) -> None:
    """A gate whose query reads a metric Prometheus holds nowhere is an error at the gate."""
    for gate in config.gates:
        missing = unknown_metric(gate.query, known)
        if missing is not None:
            name, hint = missing
            near = f" (did you mean {hint}?)" if hint else ""
            raise TfpolicyError(f"gate {gate.name}: the query reads {name}, a metric "
                                f"Prometheus holds no series of{near}", file=file,
                                line=gate.line or None, column=gate.column or None)


def judged(subjects: Sequence[Subject]) -> list[Subject]:
    return [s for s in subjects if s.side(True)]


def queries(config: GateConfig, subjects: Sequence[Subject], window: Window,
            known: frozenset[str]) -> list[Query]:
    """Every range query the gates need, each once, in a fixed order."""
    found: dict[str, Query] = {}
    for gate in config.gates:
        found.setdefault(Query(gate.query, window).key, Query(gate.query, window))
        for subject in _scope(gate, judged(subjects)):
            if gate.bound.relative and not subject.side(False) and subject.started:
                shifted = Query(gate.query, window.before(subject.started))
                found.setdefault(shifted.key, shifted)
    for name, metric in (("xidErrors", XID), ("vramLimit", FB_USED)):
        if name in config.builtin and metric in known:
            query = builtin_query(metric, window)
            found.setdefault(query.key, query)
    return list(found.values())


def results(config: GateConfig, subjects: Sequence[Subject], window: Window | str,
            answers: Answers) -> tuple[GateResult, ...]:
    """Each gate for each workload it judges, gates in the file's order, then built-ins."""
    found: list[GateResult] = []
    every = judged(subjects)
    for gate in config.gates:
        found += [_one(gate, s, window, answers) for s in _scope(gate, every)]
    if "restarts" in config.builtin:
        found += [restarts(s) for s in every]
    if isinstance(window, Window):
        found += _measured_builtins(config, every, window, answers)
    return tuple(found)


def snapshot_gates(config: GateConfig, subjects: Sequence[Subject]) -> tuple[GateResult, ...]:
    """The built-in gates the snapshot alone answers, for a run that asks no metrics."""
    if "restarts" not in config.builtin:
        return ()
    return tuple(restarts(s) for s in judged(subjects))


def _one(gate: Gate, subject: Subject, window: Window | str, answers: Answers) -> GateResult:
    if not isinstance(window, Window):
        return GateResult(gate.name, subject.workload, Outcome.WAIT, window, gate.bound.shown())
    now = answers.get(Query(gate.query, window).key, ())
    earlier = None
    if gate.bound.relative and not subject.side(False) and subject.started:
        earlier = answers.get(Query(gate.query, window.before(subject.started)).key, ())
    return judge_gate(gate, subject, window, now, earlier)


def _measured_builtins(config: GateConfig, every: list[Subject], window: Window,
                       answers: Answers) -> list[GateResult]:
    found: list[GateResult] = []
    xid = answers.get(builtin_query(XID, window).key)
    if "xidErrors" in config.builtin and xid is not None:
        found += [xid_errors(s, xid) for s in every]
    used = answers.get(builtin_query(FB_USED, window).key)
    if "vramLimit" in config.builtin and used is not None:
        found += [r for s in every if (r := vram_limit(s, every, used)) is not None]
    return found


def _scope(gate: Gate, subjects: Sequence[Subject]) -> list[Subject]:
    if not gate.workloads:
        return list(subjects)
    return [s for s in subjects if any(fnmatchcase(_named(s), g) for g in gate.workloads)]


def _named(subject: Subject) -> str:
    parts = subject.workload.split("/")
    return "/".join(parts[1:3]) if len(parts) >= 3 else subject.workload
