"""The engine: one document's data and the policies in, edits and findings out (pure).

For each pod template: is it a GPU workload, has it opted out, which policy
owns it; then undo what tfpolicy wrote before, compute the stage's target
from that original, and diff. So ``apply(apply(x)) == apply(x)`` and
``rollback(stage(x)) == x`` by construction (docs/design.md, "The stages").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tfpolicy.edits import SHARED, Edit, Layout, Op, Path, diff, format_path
from tfpolicy.findings import Finding, ResourceRef, Severity, object_ref
from tfpolicy.gpus import vendors
from tfpolicy.gpus.resources import HAMI_RESOURCES, GpuResources
from tfpolicy.policy.match import Subject, misses
from tfpolicy.policy.model import Policy
from tfpolicy.records import Record, field, replace
from tfpolicy.rewrite.cohort import Scope, by_workload, needed, place
from tfpolicy.rewrite.owners import objects as objects
from tfpolicy.rewrite.owners import owner_of, subject_of, unselected
from tfpolicy.stages import layout, run_stage
from tfpolicy.stages.canary import Cohort, Member
from tfpolicy.stages.common import (
    ENABLED,
    OWN,
    Note,
    StageContext,
    is_gpu_workload,
    labels_of,
)
from tfpolicy.stages.ownership import Undone, undo, with_layout
from tfpolicy.workloads import NotCounted, Registry, ReplicasError, finder, replicas_of
from tfpolicy.workloads.dra import ClaimIndex
from tfpolicy.workloads.revisions import carries_template_hash
from tfpolicy.workloads.views import View, real_edits

Locate = Callable[[Path], tuple[int, int]]
Capture = Callable[[Path, str], Layout | None]  # the user's text at a path (stages.layout)


class PolicySet(Record):
    policies: tuple[Policy, ...]
    gpus: GpuResources
    registry: Registry
    hami: frozenset[str] = frozenset(HAMI_RESOURCES)  # HAMi's names, a policy's renamed ones too
    # A canary rung's whole workloads, ordered over the input (rewrite.cohort); None: not
    # ordered yet (the pipeline orders them over what it is given: rewrite.firstpass).
    cohort: Cohort | None = None
    # The input's DRA claims, claim templates and DeviceClasses (rewrite.firstpass), which a
    # pod's resourceClaims name from any document; None: not indexed yet.
    claims: ClaimIndex | None = None
    # Made once, asked per file (fix reads thousands): markers(); the resources a record may
    # give back (those a stage of this run could remove); whether a policy caps a rung.
    _markers: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _recorded: frozenset[str] = field(init=False, repr=False, compare=False)
    _rung: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        markers = (*self.gpus.markers(), *sorted(self.hami - set(HAMI_RESOURCES)),
                   *self.registry.markers(), *vendors.markers(),
                   *sorted(kind for _, kind in finder.SHORTHANDS), OWN)
        object.__setattr__(self, "_markers", markers)
        object.__setattr__(self, "_recorded", self.gpus.name_set | self.hami)
        object.__setattr__(self, "_rung", needed(self.policies))

    @classmethod
    def of(cls, policies: list[Policy]) -> PolicySet:
        extra = tuple(r for p in policies for r in p.gpu_resources)
        kinds = tuple(k for p in policies for k in p.template_kinds)
        settings = [s for p in policies for s in (p.settings, *(o.settings for o in p.overrides))]
        hami = {r for s in settings if s.hami is not None for r in s.hami.resources}
        return cls(tuple(policies), GpuResources(extra), Registry(kinds),
                   frozenset(HAMI_RESOURCES) | hami)

    def markers(self) -> tuple[str, ...]:
        """A document containing none of these cannot be a GPU workload."""
        return self._markers

    def recorded(self) -> frozenset[str]:
        """The resources a record may give back (:mod:`tfpolicy.stages.trust`)."""
        return self._recorded


def with_cohort(policies: PolicySet, members: Iterable[Member]) -> PolicySet:
    """``policies`` with a canary rung's whole workloads ordered over ``members``, all the
    input's (:mod:`tfpolicy.rewrite.cohort`)."""
    return replace(policies, cohort=Cohort.of(members))


def canary_scope(policies: PolicySet) -> Scope | None:
    """What the pass that finds the members reads; ``None`` when no policy needs it."""
    if not policies._rung:
        return None
    return Scope(policies.policies, policies.registry,
                 lambda t: is_gpu_workload(t, policies.gpus, policies.hami))


_ALONE = Cohort()  # each workload alone: the first of its rung


class DocContext(Record):
    file: str
    index: int
    locate: Locate
    namespace: str = "default"
    explain: bool = False
    capture: Capture | None = None
    changes: bool = True  # a record of each change, located (DocResult.changes)


class Change(Record):
    """The edits of one pod template, with where and why."""

    resource: ResourceRef
    file: str
    template: Path
    policy: str
    edits: tuple[Edit, ...]
    line: int
    column: int


class DocResult(Record):
    edits: list[Edit]
    changes: list[Change]
    findings: list[Finding]


def plan_document(data: Any, policies: PolicySet, ctx: DocContext) -> DocResult:
    result = DocResult([], [], [])
    for base, obj in objects(data):
        handled = [view.path for view in policies.registry.views(obj)
                   if _plan_template(obj, base, view, policies, ctx, result)]
        handled += _unreached(obj, base, policies, ctx, result)
        _unmigrated(obj, base, tuple(handled), policies, ctx, result)
    return result


def _unreached(obj: Mapping[str, Any], base: Path, policies: PolicySet, ctx: DocContext,
               out: DocResult) -> list[Path]:
    """GPU resources where no field of the kind reaches the pod: reported, never edited."""
    paths = []
    for path, reason in policies.registry.reports(obj, policies.gpus):
        report = _Reporter(obj, View(base + path, {}), ctx, out)
        report(Note(Severity.WARNING, "kind-not-migrated", f"not migrated: {reason}"), "")
        paths.append(path)
    return paths


def gpu_requests(obj: Mapping[str, Any], policies: PolicySet
                 ) -> tuple[list[finder.GpuRequest], Callable[[str], bool]]:
    """Every GPU request the finder's walk finds in ``obj`` (the configured providers' and
    HAMi's names, the vendor table's, the kind's shorthands), and the test of the names the
    configuration itself counts: what tells a GPU not migrated from one not configured."""
    def configured(name: str) -> bool:
        return name in policies.gpus or name in policies.hami

    def is_gpu(name: str) -> bool:
        return configured(name) or vendors.accelerator(name) is not None

    return finder.find_requests(obj, is_gpu, finder.shorthands(obj)), configured


def _unmigrated(obj: Mapping[str, Any], base: Path, handled: tuple[Path, ...],
                policies: PolicySet, ctx: DocContext, out: DocResult) -> None:
    """Every GPU request the walk of :mod:`tfpolicy.workloads.finder` finds under no pod
    template handled above: reported where it is, with why (docs/kinds.md, "No GPU
    request passes in silence")."""
    requests, configured = gpu_requests(obj, policies)
    if not requests:
        return
    known = finder.Known(policies.registry.knows(obj), handled, configured, policies.claims)
    for item in finder.unmigrated(obj, requests, known):
        report = _Reporter(obj, View(base + item.path, {}), ctx, out)
        report(Note(item.severity, item.rule, item.message), "")


def _plan_template(obj: Mapping[str, Any], base: Path, view: View, policies: PolicySet,
                   ctx: DocContext, out: DocResult) -> bool:
    """Migrate, or report, one pod template; ``False``: it is no GPU workload."""
    template = view.template
    if not is_gpu_workload(template, policies.gpus, policies.hami):
        return False
    _template_outcome(obj, base, view, policies, ctx, out)
    return True


def _template_outcome(obj: Mapping[str, Any], base: Path, view: View, policies: PolicySet,
                      ctx: DocContext, out: DocResult) -> None:
    template = view.template
    report = _Reporter(obj, view.shifted(base), ctx, out)
    subject = subject_of(obj, template, ctx.namespace)
    if labels_of(template).get(ENABLED) == "false":
        report(Note(Severity.INFO, "opt-out", f"opted out with {ENABLED}=false"), "")
        return
    owner = owner_of(policies.policies, subject, report, ctx.explain)
    if owner is None:
        report(unselected(policies.policies), "")
        return
    if view.refused:
        report(Note(view.refused_severity, view.refused_rule, f"not migrated: {view.refused}"),
               owner.name)
        return
    original, target, notes = _target(obj, base, view, owner, subject, policies, report)
    for note in notes:
        report(note, owner.name)
    if target is None or any(n.severity is Severity.ERROR for n in notes):
        return
    assert original is not None
    _change(template, original, target, view.shifted(base), owner, report, out)


def _target(obj: Mapping[str, Any], base: Path, view: View, owner: Policy, subject: Subject,
            policies: PolicySet, report: _Reporter
            ) -> tuple[Any, dict[str, Any] | None, list[Note]]:
    """The template as the user wrote it, and the stage's target for it."""
    original, notes = undo(view.template, policies.recorded())
    if original is None:
        return None, None, notes
    settings = owner.settings_for(lambda m: not misses(m, subject))
    try:
        replicas = replicas_of(obj, view.path)
    except ReplicasError as exc:
        report.at(base + exc.path, Note(Severity.ERROR, "invalid-replicas", exc.detail),
                  owner.name)
        return original, None, notes
    except NotCounted as exc:
        replicas = None
        notes.append(Note(Severity.WARNING, "pods-not-counted", str(exc).partition(": ")[2]))
    hashed = carries_template_hash(subject.kind, labels_of(original))
    cohort = policies.cohort or _ALONE
    ctx = report.ctx
    stage, settings, whole = by_workload(cohort, owner, obj, subject, settings, hashed,
                                         lambda: place(ctx.file, ctx.locate(base)[0], base))
    stage_ctx = StageContext(subject.kind, replicas, policies.gpus, hashed)
    target, stage_notes = run_stage(stage, original, settings, stage_ctx)
    notes += whole
    return original, target, notes + stage_notes


def _change(template: Any, original: Any, target: Any, view: View, owner: Policy,
            report: _Reporter, out: DocResult) -> None:
    edits = real_edits(view, _laid_out(template, original, target, view, report.ctx.capture))
    if edits is None:
        message = "the change has no place in this kind's fields; nothing was written"
        report(Note(Severity.ERROR, "kind-not-migrated", message), owner.name)
        return
    if edits:
        out.edits.extend(edits)
        if not report.ctx.changes:
            return
        line, column = report.ctx.locate(view.path)
        out.changes.append(Change(report.ref, report.ctx.file, view.path, owner.name,
                                  tuple(edits), line, column))


def _edits(template: Any, target: Any) -> list[Edit]:
    return _keep_empty_maps(target, diff(template, target, ()), ())


def _laid_out(template: Any, original: Any, target: Any, view: View,
              capture: Capture | None) -> list[Edit]:
    """The edits, with the user's text for what they put back, and the target's record
    keeping the user's text for what they remove or replace (:mod:`tfpolicy.stages.layout`)."""
    edits = _edits(template, target)
    old = original.record.layout if isinstance(original, Undone) else {}
    if capture is None and not old:
        return edits
    real = None if capture is None else _real_capture(view, capture)
    section, edits = layout.settle(template, original, target, edits, old, real)
    if section and with_layout(target, section):
        _, edits = layout.settle(template, original, target, _edits(template, target), old, None)
    return edits


def _real_capture(view: View, capture: Capture) -> Capture:
    shares = getattr(capture, "shares", True)  # the document may hold aliases or merge keys

    def at(path: Path, kind: str) -> Layout | None:
        if kind == SHARED and not shares:
            return None
        real = view.real(path)
        return None if real is None else capture(real, kind)

    return at


def _keep_empty_maps(target: Any, edits: list[Edit], base: Path) -> list[Edit]:
    """A map the target leaves empty is set to ``{}`` in one edit rather than emptied key by
    key, which a block mapping's text would turn into null."""
    emptied = list(dict.fromkeys(e.path[:-1] for e in edits if e.op is Op.REMOVE
                                 and _get(target, e.path[len(base):-1]) == {}))
    kept = [e for e in edits if not any(e.path[:len(p)] == p for p in emptied)]
    return kept + [Edit(Op.SET, p, {}) for p in emptied]


def resource_ref(obj: Mapping[str, Any]) -> ResourceRef:
    return object_ref(obj)  # one definition: findings name unnamed objects too


class _Reporter:
    """Turns a stage's notes into located findings for one pod template."""

    def __init__(self, obj: Mapping[str, Any], view: View, ctx: DocContext,
                 out: DocResult) -> None:
        self.ref = resource_ref(obj)
        self.view, self.ctx, self.out = view, ctx, out

    def __call__(self, note: Note, policy: str) -> None:
        """Report ``note``, located by a path of the view, at its real place (the
        component itself where a path has none, as a whole ``containers`` list)."""
        self.at(self.view.real(note.path) or self.view.path, note, policy)

    def at(self, where: Path, note: Note, policy: str) -> None:
        """Report ``note`` at ``where``, a path from the document's root."""
        line, column = self.ctx.locate(where)
        self.out.findings.append(Finding(
            note.severity, note.message, note.rule, policy=policy, resource=self.ref,
            field=format_path(where), file=self.ctx.file, index=self.ctx.index,
            line=line + 1, column=column + 1,
        ))


def _get(node: Any, path: Path) -> Any:
    for item in path:
        node = node[item]
    return node
