"""The rung a ``.tfpolicy.yaml`` names with ``rung:``, applied to its policies (docs/promote.md,
"The rungs").

``rung:`` names a step of the plan of the configuration's own policies, by the
name ``tfpolicy plan`` prints: ``takeover-1`` … ``takeover-100`` (every
climbing policy takes whole cards, capped), ``rightsize-1`` … ``rightsize-100``
(the ``rightsize`` policies at their shares, capped; the others stay fully
taken over), ``autoscale`` (the ``rightsize`` policies that ask for the
autoscaler get it, the last rung), or ``rollback`` (what promote writes when
step 01 stops). ``fix``, ``check``, the hooks and every host apply the rung as
the plan simulates its step (``tfpolicy.plan.ladder.step_documents``, which does
to the documents what :func:`at_rung` does to the records): a capped
``rightsize`` keeps the native GPU resources, the autoscaler waits for its rung.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfpolicy.errors import TfpolicyError
from tfpolicy.policy.model import Override, Policy, Settings, Stage
from tfpolicy.records import Record, replace

# The built-in policies the takeover-only ladder names in ``policies:`` (docs/promote.md).
BUILTIN_RUNGS = ("takeover-1", "takeover-25", "takeover-50", "takeover")
# The plan's steps over the default ladder, by number (step 01 first).
RUNG_NAMES = ("takeover-1", "takeover-25", "takeover-50", "takeover-100", "rightsize-1",
              "rightsize-25", "rightsize-50", "rightsize-100", "autoscale")
ROLLBACK_RUNG = "rollback"
_CAPS: dict[str, int | str] = {"1": 1, "25": "25%", "50": "50%"}
_RIGHTSIZE_ONLY = frozenset({"isolation", "resources", "autoscale"})


class Where(Record):
    """Where ``rung:`` stands in its configuration, for an error about it."""

    file: str
    line: int
    column: int


def step_number(name: str) -> int:
    """``rightsize-25`` → 6: the plan's step number of a rung name."""
    return RUNG_NAMES.index(name) + 1


def at_rung(policies: Sequence[Policy], name: str | None, where: Where) -> tuple[Policy, ...]:
    """The configuration's policies as its rung makes them; ``None`` leaves them be.

    A rung the policies cannot climb to (``rightsize-…`` with no ``rightsize`` policy,
    ``autoscale`` with none that asks for it) is an error located at ``rung:``."""
    if name is None:
        return tuple(policies)
    _check(policies, name, where)
    if name == ROLLBACK_RUNG:
        return tuple(_rolled_back(p) if _climbs(p) else p for p in policies)
    stage, _, cap = name.partition("-")
    return tuple(_stepped(p, stage, _CAPS.get(cap)) if _climbs(p) else p for p in policies)


def _check(policies: Sequence[Policy], name: str, where: Where) -> None:
    stage = name.partition("-")[0]
    climbing = [p for p in policies if _climbs(p)]
    rightsize = [p for p in climbing if p.stage is Stage.RIGHTSIZE]
    missing = (not climbing if stage in ("takeover", ROLLBACK_RUNG) else
               not rightsize if stage == "rightsize" else
               not any(_autoscaled(p) for p in rightsize))
    if missing:
        wanted = {"takeover": "a takeover or rightsize policy", "rollback": "a takeover or "
                  "rightsize policy", "rightsize": "a rightsize policy"}.get(
                      stage, "a rightsize policy that sets autoscale")
        raise TfpolicyError(f"rung {name!r} needs {wanted} among the policies "
                            f"({', '.join(p.name for p in policies) or 'none'})",
                            file=where.file, line=where.line, column=where.column)


def _climbs(policy: Policy) -> bool:
    return policy.stage in (Stage.TAKEOVER, Stage.RIGHTSIZE)


def _autoscaled(policy: Policy) -> bool:
    return policy.settings.autoscale is not None or any(
        "autoscale" in o.fields and o.settings.autoscale is not None for o in policy.overrides)


def _stepped(policy: Policy, stage: str, cap: int | str | None) -> Policy:
    """One climbing policy at a step, as ``plan.ladder._step_document`` writes its document:
    a rightsize policy is itself on the rightsize rungs (without the autoscaler below the
    autoscale rung), a takeover on every rung below them; the rung's cap unless the policy
    sets its own; per-workload caps dropped."""
    rightsize = policy.stage is Stage.RIGHTSIZE and stage in ("rightsize", "autoscale")
    dropped = {"enabled_replicas"}
    dropped |= set() if rightsize else _RIGHTSIZE_ONLY
    dropped |= {"autoscale"} if rightsize and stage == "rightsize" else set()
    own = policy.settings.enabled_replicas
    ours = cap if rightsize or stage == "takeover" else None
    settings = replace(_without(policy.settings, dropped - {"enabled_replicas"}),
                       enabled_replicas=own if own is not None else ours)
    return replace(policy, stage=Stage.RIGHTSIZE if rightsize else Stage.TAKEOVER,
                   settings=settings, overrides=_overrides(policy.overrides, dropped))


def _without(settings: Settings, fields: set[str]) -> Settings:
    return replace(settings, **dict.fromkeys(fields))


def _overrides(overrides: tuple[Override, ...], dropped: set[str]) -> tuple[Override, ...]:
    """Each override without the fields the step drops; one left with none is gone (its
    entry would hold only its match), so a later one may match the workload."""
    kept = []
    for override in overrides:
        fields = override.fields - dropped
        if override.fields and not fields:
            continue
        kept.append(replace(override, fields=fields,
                            settings=_without(override.settings, dropped & override.fields)))
    return tuple(kept)


def _rolled_back(policy: Policy) -> Policy:
    """What undoes step 01 for a climbing policy's workloads: its match, stage rollback."""
    return replace(policy, stage=Stage.ROLLBACK, settings=Settings(), overrides=())
