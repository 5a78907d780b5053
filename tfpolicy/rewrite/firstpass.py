"""The first pass over a whole input, before any document is rewritten: what one document
cannot know alone.

Two things depend on every document of an input: a canary rung's whole workloads, in
their order (:mod:`tfpolicy.rewrite.cohort`), and the DRA claims, claim templates and
DeviceClasses a pod's ``resourceClaims`` name (:mod:`tfpolicy.workloads.dra`), which may
sit in any other document. The pass is light: only documents that may hold one of them
are parsed (a workload: the policies' markers, and only when some policy sets a cap below
100 %; a claim or a DeviceClass: the text names ``resource.k8s.io/``). Every entry point
(``apply``, ``fix``, ``check``, the KRM function, the kustomize plugin, ``argocd
generate``, ``plan``) orders and indexes over its whole input through these functions,
so each makes the same choice (docs/stages.md, "The canary rung").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from tfpolicy import yamlio
from tfpolicy.edits import Path
from tfpolicy.records import Record, replace
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.cohort import members, place
from tfpolicy.rewrite.engine import PolicySet, canary_scope, with_cohort
from tfpolicy.rewrite.owners import objects
from tfpolicy.rewrite.triage import parsed
from tfpolicy.stages.canary import Member
from tfpolicy.workloads import dra

Batch = list[tuple[str, yamlio.Piece]]
_DRA = dra.GROUP + "/"  # in the text of every claim, claim template and DeviceClass
MARKERS = (_DRA,)  # with the policies' markers: what a document the pass reads holds


class Found(Record):
    """What the pass found in some documents: canary members, claims, DeviceClasses."""

    members: tuple[Member, ...] = ()
    claims: tuple[dra.Claim, ...] = ()
    drivers: tuple[tuple[str, str], ...] = ()


def pending(policies: PolicySet) -> bool:
    """Whether ``policies`` still lack what the pass gives: the input's claims, or a
    canary rung's order when some policy needs one."""
    return policies.claims is None or (policies.cohort is None
                                       and canary_scope(policies) is not None)


def settled(policies: PolicySet, found: Iterable[Found], namespace: str) -> PolicySet:
    """``policies`` with what the pass found over every document of the input."""
    parts = list(found)
    claims = dra.ClaimIndex(tuple(c for f in parts for c in f.claims),
                            tuple(d for f in parts for d in f.drivers), namespace)
    if policies.claims is None:
        policies = replace(policies, claims=claims)
    if policies.cohort is None and canary_scope(policies) is not None:
        policies = with_cohort(policies, [m for f in parts for m in f.members])
    return policies


def over_documents(policies: PolicySet, files: Iterable[tuple[str, Iterable[yamlio.RawDoc]]],
                   namespace: str) -> PolicySet:
    """``policies`` with the canary order and the claims over every document of ``files``
    (name, documents); as they are when nothing is pending."""
    if not pending(policies):
        return policies
    return settled(policies, [scan(policies, namespace, file, docs) for file, docs in files],
                   namespace)


def over_texts(policies: PolicySet, texts: Iterable[tuple[str, str]],
               namespace: str) -> PolicySet:
    """``over_documents`` over whole files' texts (name, text)."""
    return over_documents(policies, ((file, yamlio.iter_documents([text], file=file))
                                     for file, text in texts), namespace)


def text_members(policies: PolicySet, file: str, text: str, namespace: str) -> list[Member]:
    """The canary members of one file's text (some policy sets a cap below 100 %): for a
    caller that reads files one by one and decides what a file that fails to load means."""
    docs = yamlio.iter_documents([text], file=file)
    return list(scan(policies, namespace, file, docs, claims=False).members)


def over_pieces(policies: PolicySet, batches: Iterable[Batch], namespace: str,
                jobs: int) -> PolicySet:
    """``over_documents`` over a stream's pieces, spread over the workers as the rewrite is."""
    work = partial(_batch_found, policies, namespace)
    found = parallel.ordered(work, batches, jobs, shared=yamlio.load_rewriter,
                             in_worker=yamlio.silence_process)
    return settled(policies, found, namespace)


def _batch_found(policies: PolicySet, namespace: str, batch: Batch) -> Found:
    parts = [scan(policies, namespace, file, piece.documents(file)) for file, piece in batch
             if worth(policies, piece.data)]
    return Found(tuple(m for f in parts for m in f.members),
                 tuple(c for f in parts for c in f.claims),
                 tuple(d for f in parts for d in f.drivers))


def worth(policies: PolicySet, data: bytes) -> bool:
    """Whether a piece may hold anything for the pass (a canary pass reads every one)."""
    return ((policies.cohort is None and canary_scope(policies) is not None)
            or (policies.claims is None and _DRA.encode() in data))


def scan(policies: PolicySet, namespace: str, file: str, docs: Iterable[yamlio.RawDoc],
         claims: bool | None = None) -> Found:
    """What one file's documents hold for the pass: members when a canary rung needs them
    (``canary_scope``), claims and DeviceClasses when ``claims`` (by default: when
    ``policies`` hold none yet)."""
    claims = policies.claims is None if claims is None else claims
    scope = canary_scope(policies) if policies.cohort is None else None
    if scope is None:
        docs = [d for d in docs if claims and _DRA in d.text]
    out: list[Member] = []
    held: list[dra.Claim] = []
    drivers: list[tuple[str, str]] = []
    for raw, found in parsed(docs, (*policies.markers(), _DRA), file):
        if found is None or found.node is None:
            continue
        if scope is not None:
            out += members(found.data, scope, namespace, _placed(file, raw, found))
        if claims and _DRA in raw.text:
            _index_into(found.data, namespace, held, drivers)
    return Found(tuple(out), tuple(held), tuple(drivers))


def _index_into(data: object, namespace: str, held: list[dra.Claim],
                drivers: list[tuple[str, str]]) -> None:
    """The claims and DeviceClasses among a document's objects (a List's items too)."""
    found = dra.index([obj for _, obj in objects(data)], namespace)
    held += found.claims
    drivers += found.drivers


def _placed(file: str, raw: yamlio.RawDoc, found: yamlio.Parsed) -> Callable[[Path], str]:
    """The ``place`` of an object of the document, as the engine computes it (its line)."""
    return lambda base: place(file, raw.line + yamlio.locate(found.node, base)[0], base)


__all__ = [
    "MARKERS",
    "Batch",
    "Found",
    "over_documents",
    "over_pieces",
    "over_texts",
    "pending",
    "scan",
    "settled",
    "text_members",
    "worth",
]
