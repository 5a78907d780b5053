"""The first pass a canary rung needs: its whole workloads, ordered over all of an input.

Made only when some policy sets a cap below 100 % (:mod:`tfpolicy.rewrite.cohort`);
the documents are parsed for it once more, and a stream is held until it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from tfpolicy import yamlio
from tfpolicy.edits import Path
from tfpolicy.rewrite import parallel
from tfpolicy.rewrite.cohort import members, place
from tfpolicy.rewrite.engine import PolicySet, canary_scope, with_cohort
from tfpolicy.rewrite.triage import parsed
from tfpolicy.stages.canary import Member

Batch = list[tuple[str, yamlio.Piece]]


def over_documents(policies: PolicySet, files: Iterable[tuple[str, Iterable[yamlio.RawDoc]]],
                   namespace: str) -> PolicySet:
    """``policies`` with a canary rung's whole workloads ordered over every document of
    ``files``; as they are when no policy sets a cap."""
    if canary_scope(policies) is None:
        return policies
    return with_cohort(policies, [m for file, docs in files
                                  for m in _members(policies, namespace, file, docs)])


def over_texts(policies: PolicySet, texts: Iterable[tuple[str, str]],
               namespace: str) -> PolicySet:
    """``over_documents`` over whole files' texts (name, text): for a command that reads
    files one at a time (``fix``, ``check``), so that it chooses over all of them."""
    if canary_scope(policies) is None:
        return policies
    return with_cohort(policies, [m for file, text in texts
                                  for m in text_members(policies, file, text, namespace)])


def text_members(policies: PolicySet, file: str, text: str, namespace: str) -> list[Member]:
    """The canary members of one file's text (some policy sets a cap below 100 %): for a
    caller that reads files one by one and decides what a file that fails to load means."""
    return _members(policies, namespace, file, yamlio.iter_documents([text], file=file))


def over_pieces(policies: PolicySet, batches: Iterable[Batch], namespace: str,
                jobs: int) -> PolicySet:
    """``over_documents`` over a stream's pieces, spread over the workers as the rewrite is."""
    work = partial(_batch_members, policies, namespace)
    found = parallel.ordered(work, batches, jobs, shared=yamlio.load_rewriter,
                             in_worker=yamlio.silence_process)
    return with_cohort(policies, [m for batch in found for m in batch])


def _batch_members(policies: PolicySet, namespace: str, batch: Batch) -> list[Member]:
    return [m for file, piece in batch
            for m in _members(policies, namespace, file, piece.documents(file))]


def _members(policies: PolicySet, namespace: str, file: str,
             docs: Iterable[yamlio.RawDoc]) -> list[Member]:
    scope = canary_scope(policies)
    assert scope is not None
    return [m for raw, found in parsed(docs, policies.markers(), file)
            if found is not None and found.node is not None
            for m in members(found.data, scope, namespace, _placed(file, raw, found))]


def _placed(file: str, raw: yamlio.RawDoc, found: yamlio.Parsed) -> Callable[[Path], str]:
    """The ``place`` of an object of the document, as the engine computes it (its line)."""
    return lambda base: place(file, raw.line + yamlio.locate(found.node, base)[0], base)
