"""The commit message and the pull-request summary promote writes (pure: data in, text out)."""

from __future__ import annotations

from collections.abc import Sequence

from tfpolicy.gates.render import markdown_table, text_lines
from tfpolicy.plan import StepReport, freed_between
from tfpolicy.records import Record
from tfpolicy.verify import Report, Verdict
from tfpolicy.verify.report_render import origin_line

_MAX_LISTED = 10  # workloads named in a commit message; the rest are counted
HOURS_PER_MONTH = 730  # 365 × 24 ÷ 12, as cloud price sheets count a month


class Change(Record):
    """One rung written: from where to where, and why."""

    before: str  # the rung's built-in name
    after: str
    rollback: bool
    reasons: tuple[str, ...]  # the decision's
    planned: StepReport | None  # the plan's step for ``after`` (None: a rollback)
    whole: StepReport | None = None  # the plan's step 04 (whole cards), when ``after`` shares


def subject(change: Change, gated: bool = False) -> str:
    if change.rollback:
        said = "a gate failed" if gated else "verify said stop"
        return f"GPU migration: roll back {change.before} to {change.after}, {said}"
    return f"GPU migration: {change.before} to {change.after}, verify said ready"


def commit_message(change: Change, report: Report) -> str:
    """A subject line, then which workloads, the verify evidence and the plan's verdict."""
    gated = report.cluster_verdict is not Verdict.STOP
    lines = [subject(change, gated), "", *change.reasons, origin_line(report.origin), ""]
    lines += [f"{w.workload}: {w.verdict.word} (TensorFusion pods {w.seen_tf}/{w.expected_tf}, "
              f"native {w.seen_native}/{w.expected_native})" for w in report.workloads]
    lines += _stops(report) if change.rollback else []
    lines += ["", *text_lines(report.gates)] if report.gates else []
    lines += ["", *measured_lines(report), *(_plan_lines(change)), "",
              f"`.tfpolicy.yaml` names {change.after}; `tfpolicy fix` applied it."]
    return "\n".join(lines) + "\n"


def _stops(report: Report) -> list[str]:
    """What made verify say stop, the first few (the report names them all)."""
    found = [f"  stop: {p.subject}: {p.message}" for w in report.workloads
             for p in w.problems if p.verdict is Verdict.STOP]
    found += [f"  stop: {p.subject}: {p.message}" for p in report.cluster
              if p.verdict is Verdict.STOP]
    found += [f"  stop: GPU {g.name}: {g.problem.message}" for g in report.gpus
              if g.problem is not None and g.problem.verdict is Verdict.STOP]
    more = len(found) - _MAX_LISTED
    return found[:_MAX_LISTED] + ([f"  and {more} more"] if more > 0 else [])


def _plan_lines(change: Change) -> list[str]:
    step = change.planned
    if step is None:
        return [f"The rollback: {change.after} as the configuration's rung."]
    rolled = _listed(step.rolled) or "none (the rung's counts are those of the one before)"
    return [f"The plan for step {step.number:02d} {step.name}: {step.status.value}.",
            f"Workloads rolled by it: {rolled}.", *savings_lines(step, change.whole)]


def measured_lines(report: Report) -> list[str]:
    """What the cluster leaves free at the rung verified, against the plan's promise for
    that rung (verify's ``savings``: the snapshot's GPU objects and pods); none at a rung
    that frees nothing. A warning of verify's rides along: it never changes the decision."""
    found = report.savings
    if found is None:
        return []
    line = (f"Savings measured at step {report.step} (the snapshot's GPUs and pods): "
            f"{found.gpus_free} GPUs and {found.nodes_free} GPU nodes free; the plan promised "
            f"{found.planned_gpus_free} GPUs and {found.planned_nodes_free} GPU nodes.")
    return [line, *([f"Warning: {found.warning}"] if found.warning else [])]


def savings_lines(step: StepReport, whole: StepReport | None) -> list[str]:
    """What the plan promised the rung ``step`` frees, against the whole cards of ``whole``
    (the plan's takeover-100; None: a takeover rung, which frees nothing): GPUs and nodes,
    GPU-hours per day, and the cost per month where the inventory prices the GPUs. The
    plan's figures (``tfpolicy plan -o json``: ``gpus``, ``nodesInUse``, ``costPerHour``
    of the two steps), each line naming its source."""
    if whole is None or whole.usage is None or step.usage is None:
        return []
    freed = freed_between(whole, step)
    source = (f"the plan's step {step.number:02d} {step.name} against step {whole.number:02d} "
              f"{whole.name}")
    lines = [f"Savings the plan promised so far ({source}): {freed.gpus_freed} GPUs freed "
             f"({freed.gpus_before} → {freed.gpus_after} in use), nodes in use "
             f"{freed.nodes_before} → {freed.nodes_after}, "
             f"{24 * freed.gpus_freed} GPU-hours per day."]
    if freed.cost_before:
        saved = freed.cost_before - freed.cost_after
        lines.append(f"Cost the plan promised saved: ${saved / 1e6:,.2f} per hour, "
                     f"${saved * HOURS_PER_MONTH / 1e6:,.2f} per month "
                     f"({HOURS_PER_MONTH} hours; GPU prices from the inventory).")
    return lines


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_MAX_LISTED])
    more = len(names) - _MAX_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


def summary(change: Change, report: Report, stat: str) -> str:
    """Markdown for a pull-request body: the rung, the plan, the diff stat, verify's table."""
    title = "Roll back" if change.rollback else "Promote"
    parts = [f"## {title}: `{change.before}` → `{change.after}`", "",
             *(f"- {reason}" for reason in change.reasons),
             f"- {origin_line(report.origin)}",
             *(f"- {line}" for line in (*measured_lines(report), *_plan_lines(change))),
             "", "### Changes", "", "```", stat.rstrip("\n") or "(none)", "```", "",
             f"### Verify, step {report.step}: {report.verdict.word}", "", *verify_table(report),
             *(["", *markdown_table(report.gates)] if report.gates else [])]
    return "\n".join(parts) + "\n"


def verify_table(report: Report) -> list[str]:
    rows = ["| workload | verdict | TensorFusion pods | native pods | problems |",
            "|---|---|---|---|---|"]
    for w in report.workloads:
        problems = "; ".join(f"{p.subject}: {p.message}" for p in w.problems) or "—"
        rows.append(f"| `{w.workload}` | {w.verdict.word} | {w.seen_tf}/{w.expected_tf} | "
                    f"{w.seen_native}/{w.expected_native} | {_cell(problems)} |")
    disagree = sum(g.problem is not None for g in report.gpus)
    rows += ["", f"GPUs: {len(report.gpus)} checked, {disagree} disagree with the plan."]
    rows += [f"Cluster: {p.verdict.word}: {p.message}" for p in report.cluster]
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
