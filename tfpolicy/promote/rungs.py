"""The rungs ``promote`` climbs: where the project configuration stands on the ladder.

Two ways to write the rung (docs/promote.md, "The rungs"). The takeover
ladder alone: ``policies:`` names one of the built-in policies that are the
steps of ``tfpolicy plan -p takeover``:

=====  ===============  ====================================================
step   built-in name    the plan's step
=====  ===============  ====================================================
01     ``takeover-1``   takeover-1: one replica of each workload
02     ``takeover-25``  takeover-25
03     ``takeover-50``  takeover-50
04     ``takeover``     takeover-100: every replica, ``enabled-replicas`` gone
=====  ===============  ====================================================

Verify and the plan are run with ``takeover`` in place of the rung's name, so
that the step numbers, and the rollback verify names, are the plan's own.

The whole ladder: ``policies:`` names the policies the ladder climbs (a
``rightsize`` policy as ``recommend`` writes it) and ``rung:`` the plan step
they are at, by the name the plan prints (``tfpolicy.policy.rung``): steps
01–04 take whole cards, 05–08 rightsize, 09 ``autoscale`` where a rightsize
policy asks for it. On a stop, a rightsize or autoscale rung goes back to
``takeover-100``, the whole cards the cluster ran before any share was tried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.policy.rung import BUILTIN_RUNGS, ROLLBACK_RUNG, RUNG_NAMES, step_number
from tfpolicy.records import Record

LADDER = BUILTIN_RUNGS
TARGET = "takeover"  # the policy whose plan steps the names above are
ROLLBACK = "rollback"  # what undoes step 01: every pod back to the device plugin
WHOLE_CARDS = 4  # step 04, takeover-100: where a rightsize rung goes back to on a stop
_CLIMBING = ("takeover", "rightsize")


class RefusedError(TfpolicyError):
    """The repository is not in a state to promote from: nothing is changed (exit 4),
    said as ``promote: refused: …``."""

    exit_code = ExitCode.REFUSED
    speaker = "promote"
    verdict = "refused"

    def __str__(self) -> str:
        return self.message  # as written: never located, never folded


class Position(Record):
    """Where the configuration stands: the plan's ``step``, named by its ``index``-th policy
    (a built-in rung) or, with ``index`` None, by ``rung:``; ``top``: the ladder's last."""

    index: int | None
    step: int  # the plan's step number, 1 to ``top``
    top: int = len(LADDER)

    def _named(self, step: int) -> str:
        return LADDER[step - 1] if self.index is not None else RUNG_NAMES[step - 1]

    @property
    def name(self) -> str:
        return self._named(self.step)

    @property
    def last(self) -> bool:
        return self.step >= self.top

    @property
    def next_name(self) -> str:
        return self._named(self.step + 1)

    @property
    def previous_name(self) -> str:
        return self._named(self.step - 1) if self.step > 1 else ROLLBACK

    @property
    def rollback_name(self) -> str:
        """A takeover rung goes one rung down (step 01: to the device plugin); a rightsize
        or autoscale rung to the whole cards of step 04."""
        if self.step > WHOLE_CARDS:
            return self._named(WHOLE_CARDS)
        return self.previous_name


def position(refs: Sequence[str], rung: str | None = None) -> Position:
    """The rung among the configuration's policies, or its ``rung:``; none or several is
    refused."""
    if rung is not None:
        if rung == ROLLBACK_RUNG:
            raise RefusedError("the configuration's rung is rollback (step 01 stopped): set "
                               "rung: takeover-1 to start over")
        return Position(None, step_number(rung))
    found = [(i, LADDER.index(ref) + 1) for i, ref in enumerate(refs) if ref in LADDER]
    if not found:
        raise RefusedError("the configuration names no rung of the takeover ladder "
                           f"({', '.join(LADDER)}) among its policies, and no rung:; its "
                           f"policies: {', '.join(refs) or 'none'}")
    if len(found) > 1:
        raise RefusedError("the configuration names several rungs ("
                      f"{', '.join(refs[i] for i, _ in found)}): name one")
    return Position(*found[0])


def ladder_top(steps: int, named: Position) -> Position:
    """The position with its ladder's last step: the plan's step count for ``rung:``, step
    04 for a built-in rung (its plan is of ``takeover``)."""
    if named.index is not None:
        return named
    if named.step > steps:
        raise RefusedError(f"rung: {named.name} is step {named.step:02d}, and the plan of the "
                           f"configuration's policies has {steps} steps")
    return Position(None, named.step, steps)


def named_rung(refs: Sequence[str], rung: str | None = None) -> Position | None:
    """The rung the policies or ``rung:`` name, if any (``verify`` takes its step from it);
    several is an error, as for ``promote``; so is ``rung: rollback``, which names no step."""
    if rung is None and not any(ref in LADDER for ref in refs):
        return None
    try:
        return position(refs, rung)
    except RefusedError as exc:
        raise TfpolicyError(exc.message) from None


def target_refs(refs: Sequence[str], at: Position) -> tuple[str, ...]:
    """The configuration's policies with the rung replaced by the policy it is a step of
    (with ``rung:``, they are that policy already)."""
    return tuple(TARGET if i == at.index else ref for i, ref in enumerate(refs))


def climbing(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The names of other policies that climb a ladder of their own (refused beside a rung:
    the plan would put them on the same steps, which the configuration does not say)."""
    return sorted(str((d.get("metadata") or {}).get("name", "?")) for d in docs
                  if str((d.get("spec") or {}).get("stage")) in _CLIMBING)


def rolled_back(docs: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The policies as ``rung: rollback`` makes them (``tfpolicy.policy.rung``): each
    climbing one a rollback of its own workloads, the others as they are."""
    return tuple({**d, "spec": _rollback_spec(d["spec"])}
                 if str((d.get("spec") or {}).get("stage")) in _CLIMBING else dict(d)
                 for d in docs)


def _rollback_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    kept = ("match", "exclude", "podTemplates", "gpuResources")
    return {"stage": "rollback", **{k: spec[k] for k in kept if k in spec}}
