"""What a record may make tfpolicy do: undo its own writes, and nothing else (docs/record.md).

The record (:mod:`tfpolicy.stages.record`) is read from the repository, so
anyone who can edit a manifest can edit it. Undoing it restores what it
names; were that obeyed for any key, a pull request could change a selector
label or a CPU limit through tfpolicy. So an entry is only honoured where a
stage could have written it (docs/record.md):

- labels and annotations a stage owns (:mod:`tfpolicy.stages.keys`), and the
  HAMi annotations rightsize removes when it converts HAMi's share;
- GPU resources: the names tfpolicy knows as GPUs for this run (the
  providers' and the policies' ``gpuResources``) and HAMi's resources (its
  chart's names and a policy's renamed ones): what rightsize removes;
- the maps a stage created, which were absent or null: ``{}`` or
  ``{"was": null}`` for ``metadata``, ``labels`` or ``annotations``.

Every other entry is left out and named in a warning; the rest of the record
is undone as usual. But an entry for an extended resource that looks like a
device (a domain-prefixed name outside ``kubernetes.io``) and that no policy
of this run names is an error: it may be a GPU a policy's ``gpuResources``
named for the stage, and leaving it out would lose its value with the record.
The template is then refused and left as it is. ``layout`` needs no screen: it never decides data (a
recorded line that reads as another value is not used).
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from tfpolicy.findings import Severity
from tfpolicy.gpus.resources import HAMI_ANNOTATIONS
from tfpolicy.records import replace
from tfpolicy.stages.common import Note
from tfpolicy.stages.keys import OWNED_ANNOTATIONS, OWNED_LABELS
from tfpolicy.stages.record import WAS, Entries, Record, Usage

LABELS = OWNED_LABELS
ANNOTATIONS = OWNED_ANNOTATIONS | frozenset(HAMI_ANNOTATIONS)
MAPS = frozenset({"metadata", "labels", "annotations"})
RULE = "record-entry-ignored"
UNKNOWN = "record-resource-unknown"


def screen(record: Record, resources: Container[str],
           where: tuple[str, ...]) -> tuple[Record, list[Note]]:
    """``record`` with only the entries a stage could have written, and a warning (located
    at ``where``, the record's annotation) for each one left out."""
    labels, notes = _keys(record.labels, LABELS, "label", where)
    annotations, more = _keys(record.annotations, ANNOTATIONS, "annotation", where)
    maps, made = _maps(record.maps, where)
    usage, removed = _resources(record.resources, resources, where)
    notes += more + made + removed
    if not notes:
        return record, []
    return replace(record, labels=labels, annotations=annotations, maps=maps,
                   resources=usage), notes


def _keys(entries: Entries, owned: frozenset[str], what: str,
          where: tuple[str, ...]) -> tuple[Entries, list[Note]]:
    kept = {key: entry for key, entry in entries.items() if key in owned}
    notes = [_ignored(f"the {what} {_short(key)}, which no stage writes", where)
             for key in sorted(entries) if key not in owned]
    return kept, notes


def _maps(entries: Entries, where: tuple[str, ...]) -> tuple[Entries, list[Note]]:
    """A stage creates a map only where there was none, or a null one (:func:`stamp`)."""
    kept = {name: entry for name, entry in entries.items() if _created(name, entry)}
    notes = [_ignored(f"the {_short(name)} map as {_short(entries[name])}, which no stage "
                      "writes (it creates a map only in place of none or null)", where)
             for name in sorted(entries) if name not in kept]
    return kept, notes


def _created(name: str, entry: dict[str, Any]) -> bool:
    return name in MAPS and (WAS not in entry or entry[WAS] is None)


def _resources(usage: Usage, gpus: Container[str],
               where: tuple[str, ...]) -> tuple[Usage, list[Note]]:
    kept: Usage = {}
    notes = []
    for name, sections in usage.items():
        for section, entries in sections.items():
            for resource in entries:
                if resource in gpus:
                    kept.setdefault(name, {}).setdefault(section, {})[resource] = \
                        entries[resource]
                else:
                    notes.append(_unknown(resource, section, name, where))
    return kept, sorted(notes, key=lambda note: (-note.severity, note.message))


def _unknown(resource: str, section: str, container: str, where: tuple[str, ...]) -> Note:
    """Kubernetes' own resources are never a GPU: ignored. An extended resource may be one
    the policies of this run do not name (a rollback must name the ``gpuResources`` the
    stage had): dropping it would lose the user's value with the record, so the template
    is refused, record and all, until a policy names it."""
    entry = f"{_short(resource)} in the {section} of container {_short(container)}"
    if not _device(resource):
        return _ignored(f"{entry}, which is not a GPU resource", where)
    message = (f"the record names {entry}, which is not a GPU resource the policies name: "
               f"if it is one, list it in the policy's gpuResources; nothing is changed")
    return Note(Severity.ERROR, UNKNOWN, message, where)


def _device(resource: str) -> bool:
    domain, slash, _ = resource.partition("/")
    return bool(slash) and domain != "kubernetes.io" and not domain.endswith(".kubernetes.io")


def _ignored(entry: str, where: tuple[str, ...]) -> Note:
    message = f"the record names {entry}: ignored, not restored"
    return Note(Severity.WARNING, RULE, message, where)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
