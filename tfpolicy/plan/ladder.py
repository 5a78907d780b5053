"""The steps of a plan and the policy documents of each step (docs/plan.md).

A rung is an ``enabledReplicas`` value: an integer or ``"N%"``. The default
ladder is 1 → 25 % → 50 % → 100 %. Policies whose target is ``takeover`` or
``rightsize`` first climb the ladder as ``takeover`` (guide steps 2–3); the
``rightsize`` ones then climb it again as ``rightsize`` (guide step 5),
while the takeover ones stay fully taken over; where a ``rightsize`` policy
asks for TensorFusion's autoscaler, one ``autoscale`` step follows, the only
one that writes it (guide step 5b). A policy that sets its own
``enabledReplicas`` keeps that cap on every rung: the ladder never goes past
what the user asked for. ``rollback`` policies are the same in every step.

Each step is a list of ordinary MigrationPolicy documents, so the file the
GitOps commit holds and what the plan simulates are the same thing.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.policy.model import build_policy
from tfpolicy.records import Record, replace
from tfpolicy.rewrite.engine import PolicySet

Rung = int | str
DEFAULT_LADDER: tuple[Rung, ...] = (1, "25%", "50%", "100%")
_RUNG = re.compile(r"^(?:[1-9][0-9]*)%?$")
_RIGHTSIZE_ONLY = ("isolation", "resources", "autoscale")
_CLIMBING = ("takeover", "rightsize")


class Step(Record):
    number: int
    stage: str
    rung: Rung | None

    @property
    def name(self) -> str:
        if self.rung is None:
            return self.stage
        return f"{self.stage}-{str(self.rung).removesuffix('%')}"


def parse_ladder(text: str) -> tuple[Rung, ...]:
    """``"1,25%,50%,100%"`` → ``(1, "25%", "50%", "100%")``; bad input is exit 2."""
    rungs: list[Rung] = []
    for part in (p.strip() for p in text.split(",")):
        if not _RUNG.match(part):
            raise TfpolicyError(f"--steps: {part!r} is not a replica count or a percentage")
        rungs.append(part if part.endswith("%") else int(part))
    names = [str(r).removesuffix("%") for r in rungs]
    if len(set(names)) != len(names):
        raise TfpolicyError(f"--steps: {text!r} names the same rung twice")
    return tuple(rungs)


def plan_steps(docs: Sequence[Mapping[str, Any]], ladder: tuple[Rung, ...]) -> list[Step]:
    """Takeover rungs, then rightsize rungs when some policy targets rightsize."""
    stages = {str(d["spec"]["stage"]) for d in docs}
    wanted = [s for s in _CLIMBING if s in stages or (s == "takeover" and "rightsize" in stages)]
    if not wanted:
        return [Step(1, "rollback", None)]
    rungs: list[tuple[str, Rung | None]] = [(stage, rung) for stage in wanted for rung in ladder]
    if any(_autoscaled(d) for d in docs if d["spec"]["stage"] == "rightsize"):
        rungs.append(("autoscale", None))
    return [Step(n, stage, rung) for n, (stage, rung) in enumerate(rungs, start=1)]


def _autoscaled(doc: Mapping[str, Any]) -> bool:
    spec = doc["spec"]
    return spec.get("autoscale", False) is not False or any(
        w.get("autoscale", False) is not False for w in spec.get("workloads", []))


def step_documents(docs: Sequence[Mapping[str, Any]], step: Step) -> list[dict[str, Any]]:
    """The policy documents of one step (deep copies; the inputs stay untouched)."""
    return [_step_document(doc, step) for doc in docs]


def _step_document(doc: Mapping[str, Any], step: Step) -> dict[str, Any]:
    result = copy.deepcopy(dict(doc))
    spec = result["spec"]
    target = spec["stage"]
    if target not in _CLIMBING:
        return result
    rightsize = target == "rightsize" and step.stage in ("rightsize", "autoscale")
    stage = "rightsize" if rightsize else "takeover"
    rung = step.rung if stage == step.stage else None
    spec["stage"] = stage
    _set_rung(spec, rung)
    dropped = _RIGHTSIZE_ONLY if stage == "takeover" else (
        ("autoscale",) if step.stage == "rightsize" else ())
    _drop(spec, dropped)
    spec["workloads"] = [w for w in (_override(w, dropped) for w in spec.get("workloads", []))
                         if len(w) > 1]
    if not spec["workloads"]:
        del spec["workloads"]
    return result


def _set_rung(spec: dict[str, Any], rung: Rung | None) -> None:
    """The user's own cap wins; "100%" and no rung both mean no cap."""
    if "enabledReplicas" in spec:
        return
    if rung is not None and rung != "100%":
        spec["enabledReplicas"] = rung


def _override(raw: Mapping[str, Any], dropped: tuple[str, ...]) -> dict[str, Any]:
    entry = dict(raw)
    _drop(entry, ("enabledReplicas", *dropped))
    return entry


def _drop(mapping: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        mapping.pop(key, None)


def policy_set(docs: list[dict[str, Any]], file: str,
               gpus: GpuResources | None = None) -> PolicySet:
    """The engine's view of a step's documents (already schema-valid: derived from valid ones).

    ``gpus``: the operator's GPU resource names (its ProviderConfigs), so the
    rewrite and the webhook agree on what a GPU is; the policies' extras add.
    """
    found = PolicySet.of([build_policy(d, file, 0, 0) for d in docs])
    if gpus is None:
        return found
    extra = tuple(r for p in found.policies for r in p.gpu_resources)
    return replace(found, gpus=gpus.with_extra(extra))
