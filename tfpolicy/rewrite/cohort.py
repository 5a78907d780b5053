"""A canary rung's workloads on uncapped kinds: found over the whole input, then decided.

:mod:`tfpolicy.stages.canary` says why and in which order. Here: which
templates the rule covers (a GPU template, not opted out, whose owner sets a
cap that would not bite: its pods carry no ``pod-template-hash`` and it is no
bare Pod, which is refused as before), the pass that gathers them from every
document of an input, and the engine's decision for one template.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.policy.match import Subject, misses
from tfpolicy.policy.model import Match, Policy, Settings, Stage
from tfpolicy.records import Record, replace
from tfpolicy.rewrite.owners import objects, owner_of, subject_of
from tfpolicy.stages import canary
from tfpolicy.stages.common import ENABLED, Note, labels_of
from tfpolicy.workloads import Registry
from tfpolicy.workloads.revisions import carries_template_hash

RULE_MOVED = "canary-whole"
RULE_WAITS = "canary-waits"


class Scope(Record):
    """What the pass reads off a policy set (the engine's ``PolicySet``)."""

    policies: tuple[Policy, ...]
    registry: Registry
    is_gpu: Callable[[Any], bool]  # as the engine decides it


def covered(subject: Subject, settings: Settings, hashed: bool) -> bool:
    """A cap would be written here and nothing would enforce it."""
    wanted = settings.enabled_replicas
    return (wanted is not None and canary.rung_count(wanted, 1) is not None
            and not hashed and subject.kind != "Pod")


def needed(policies: Iterable[Policy]) -> bool:
    """Some policy (or one of its overrides) sets a cap below 100 %: a pass is worth it."""
    return any(s.enabled_replicas is not None and canary.rung_count(s.enabled_replicas, 1)
               is not None for p in policies
               for s in (p.settings, *(o.settings for o in p.overrides)))


def members(data: Any, scope: Scope, namespace: str,
            where: Callable[[Path], str] = lambda _: "") -> Iterator[canary.Member]:
    """The covered workloads of one document, as the engine would find them; ``where``: the
    ``place`` of the object at a path of the document, as the engine's pass computes it."""
    for base, obj in objects(data):
        for view in scope.registry.views(obj):
            template = view.template
            if view.refused or not scope.is_gpu(template):
                continue
            if labels_of(template).get(ENABLED) == "false":
                continue
            subject = subject_of(obj, template, namespace)
            owner = owner_of(scope.policies, subject)
            if owner is None:
                continue
            settings = owner.settings_for(partial(_matches, subject))
            if covered(subject, settings, carries_template_hash(subject.kind,
                                                                labels_of(template))):
                placed = "" if subject.name else where(base)  # a line costs a walk: if needed
                yield canary.Member(owner.name, key_of(obj, subject, placed),
                                    canary.pinned(subject.labels))


def _matches(subject: Subject, match: Match) -> bool:
    return not misses(match, subject)


def key_of(obj: Mapping[str, Any], subject: Subject, where: str = "") -> canary.Key:
    """Namespace, kind, name. An object the API server names (an Argo Workflow's) has its
    ``generateName`` and where it is written (``place``): each such document is a run of its
    own, two runs of one manifest two workloads, ordered by their place after the prefix."""
    if subject.name:
        return subject.namespace, subject.kind, subject.name
    meta = obj.get("metadata")
    made = str((meta.get("generateName") if isinstance(meta, Mapping) else None) or "")
    return subject.namespace, subject.kind, f"{made}{SEP}{where}" if where else made


SEP = "\x1f"  # between a generateName and its place in a key: no name holds it


def place(file: str, line: int, base: Path) -> str:
    """A nameless object's identity: its file, its line (the plan, whose documents are
    parsed without lines, gives the document's number) and its path in its document."""
    return f"{file}{SEP}{line:09d}{SEP}{'/'.join(str(p) for p in base)}"


def generate_name_of(key: canary.Key) -> str:
    """The ``generateName`` a key holds for a nameless object (else its name)."""
    return key[2].partition(SEP)[0]


def by_workload(cohort: canary.Cohort, owner: Policy, obj: Mapping[str, Any], subject: Subject,
                settings: Settings, hashed: bool, where: Callable[[], str] = lambda: ""
                ) -> tuple[Stage, Settings, list[Note]]:
    """The stage and settings one template gets: a covered one is moved whole (no cap) or
    left as the user wrote it (rollback gives exactly that back), and says which; ``where``:
    the object's ``place``, asked for a nameless object only."""
    if not covered(subject, settings, hashed):
        return owner.stage, settings, []
    assert settings.enabled_replicas is not None
    wanted = settings.enabled_replicas
    key = key_of(obj, subject, "" if subject.name else where())
    decision = canary.pick_canary(cohort, owner.name, key, wanted)
    message = canary.describe(decision, subject.kind)
    if decision.chosen:
        note = Note(Severity.INFO, RULE_MOVED, message)
        return owner.stage, replace(settings, enabled_replicas=None), [note]
    return Stage.ROLLBACK, settings, [Note(Severity.INFO, RULE_WAITS, message)]
