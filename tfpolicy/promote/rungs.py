"""The rungs ``promote`` climbs: the built-in policies the project configuration names.

``tfpolicy plan`` derives the takeover ladder (1 → 25 % → 50 % → 100 %) from
the ``takeover`` policy; each of its steps is one built-in policy, the one
``.tfpolicy.yaml`` names while the migration stands on it:

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.records import Record

LADDER = ("takeover-1", "takeover-25", "takeover-50", "takeover")
TARGET = "takeover"  # the policy whose plan steps the names above are
ROLLBACK = "rollback"  # what undoes step 01: every pod back to the device plugin
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
    """Where the configuration stands: its ``index``-th policy is the rung of ``step``."""

    index: int
    step: int  # the plan's step number, 1 to 4

    @property
    def name(self) -> str:
        return LADDER[self.step - 1]

    @property
    def last(self) -> bool:
        return self.step == len(LADDER)

    @property
    def next_name(self) -> str:
        return LADDER[self.step]

    @property
    def rollback_name(self) -> str:
        return LADDER[self.step - 2] if self.step > 1 else ROLLBACK


def position(refs: Sequence[str]) -> Position:
    """The rung among the configuration's policies; none or several is refused."""
    found = [(i, LADDER.index(ref) + 1) for i, ref in enumerate(refs) if ref in LADDER]
    if not found:
        raise RefusedError("the configuration names no rung of the takeover ladder "
                      f"({', '.join(LADDER)}); its policies: {', '.join(refs) or 'none'}")
    if len(found) > 1:
        raise RefusedError("the configuration names several rungs ("
                      f"{', '.join(refs[i] for i, _ in found)}): name one")
    return Position(*found[0])


def named_rung(refs: Sequence[str]) -> Position | None:
    """The rung the policies name, if any (``verify`` takes its step from it); several is
    an error, as for ``promote``."""
    if not any(ref in LADDER for ref in refs):
        return None
    try:
        return position(refs)
    except RefusedError as exc:
        raise TfpolicyError(exc.message) from None


def target_refs(refs: Sequence[str], at: Position) -> tuple[str, ...]:
    """The configuration's policies with the rung replaced by the policy it is a step of."""
    return tuple(TARGET if i == at.index else ref for i, ref in enumerate(refs))


def climbing(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The names of other policies that climb a ladder of their own (refused beside a rung:
    the plan would put them on the same steps, which the configuration does not say)."""
    return sorted(str((d.get("metadata") or {}).get("name", "?")) for d in docs
                  if str((d.get("spec") or {}).get("stage")) in _CLIMBING)
