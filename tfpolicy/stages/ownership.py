"""Writing a stage's keys with their record, and undoing them from it (docs/stages.md).

``stamp`` writes what a stage owns and records, key by key, what the user
had there; ``undo`` reads the record back, honouring only what a stage could
have written (:mod:`tfpolicy.stages.trust`). A key the record does not name is
the user's and neither function touches it, so ``rollback(stage(x)) == x``
for any mix of user-written TensorFusion keys, and empty or null
``metadata`` / ``labels`` / ``annotations`` maps come back as they were.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from tfpolicy import records
from tfpolicy.edits import clone
from tfpolicy.findings import Severity
from tfpolicy.records import field, replace
from tfpolicy.stages.common import Note, annotations_of, child_map, containers
from tfpolicy.stages.keys import LEGACY_RECORD, OWNED_ANNOTATIONS, OWNED_LABELS, RECORD
from tfpolicy.stages.layout import reorder
from tfpolicy.stages.record import (
    MAX_BYTES,
    RESOURCE_DEPTH,
    WAS,
    Entries,
    Record,
    Usage,
    decode,
    decode_legacy,
    encode,
    too_large,
    unreadable,
    unrecordable,
)
from tfpolicy.stages.trust import screen

MAPS = ("labels", "annotations")


class Writes(records.Record):
    """What a stage puts on a template: label and annotation values, owned annotations it
    removes (with a warning), the GPU resources it already removed from the containers, and
    other annotations it removes (HAMi's; the stage says why)."""

    labels: dict[str, str]
    annotations: dict[str, str]
    drop: tuple[str, ...] = ()
    resources: Usage = field(default_factory=dict)
    remove: tuple[str, ...] = ()


def stamp(template: dict[str, Any], writes: Writes) -> tuple[dict[str, Any] | None, list[Note]]:
    """``template`` (changed in place) with the stage's keys and the record of what was there;
    ``None`` when that cannot be recorded exactly (reported as an error)."""
    refused = _unrecordable(template, writes)
    if refused:
        return None, refused
    record = Record(resources=writes.resources)
    meta = _open(template, "metadata", record.maps)
    labels, annotations = (_open(meta, name, record.maps) for name in MAPS)
    notes = _put(labels, writes.labels, record.labels, "labels")
    notes += _put(annotations, writes.annotations, record.annotations, "annotations")
    notes += _drop(annotations, writes.drop, record.annotations)
    for key in (k for k in writes.remove if k in annotations):
        record.annotations[key] = {WAS: annotations.pop(key)}
    text = encode(record)
    why = unreadable(text)  # so that the next run can read what this one writes
    if why is not None:
        message = f"{RECORD} would be {why}; tfpolicy does not write it"
        return None, [Note(Severity.ERROR, "unrecordable-value", message,
                           ("metadata", "annotations"))]
    annotations[RECORD] = text
    size = annotations_size(annotations)
    if size > MAX_BYTES:
        return None, [_too_large(size, annotations)]
    return template, notes


def with_layout(target: dict[str, Any], section: Entries) -> bool:
    """``target``'s record given ``section`` as its layout (in place); ``False`` when
    ``target`` carries no record of this form, or when the layout would take the
    annotations over what Kubernetes allows (the values come back all the same, written
    the usual way)."""
    annotations = annotations_of(target)
    text = annotations.get(RECORD)
    if not isinstance(text, str):
        return False
    encoded = encode(replace(decode(text), layout=section))
    grown = annotations_size(annotations) + _bytes(encoded) - _bytes(text)
    if too_large(encoded) or grown > MAX_BYTES:
        return False
    annotations[RECORD] = encoded
    return True


def annotations_size(annotations: dict[str, Any]) -> int:
    """The bytes Kubernetes counts against its limit: every key and value, in UTF-8
    (kubernetes/apimachinery pkg/api/validation/objectmeta.go:61-67,
    ``ValidateAnnotationsSize``)."""
    return sum(_bytes(str(key)) + _bytes(str(value)) for key, value in annotations.items())


def _bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _too_large(size: int, annotations: dict[str, Any]) -> Note:
    """The template refused: with the stage's keys and the record, its annotations would
    pass the limit, and the API server refuses the object."""
    ours = sum(_bytes(k) + _bytes(str(annotations[k])) for k in annotations
               if k == RECORD or k in OWNED_ANNOTATIONS)
    message = (f"with the stage's annotations and {RECORD}, the pod template's annotations "
               f"would take {size:,} bytes ({ours:,} of them tfpolicy's), over the "
               f"{MAX_BYTES:,} Kubernetes allows: the API server would refuse the object; "
               "nothing is written")
    return Note(Severity.ERROR, "annotations-too-large", message, ("metadata", "annotations"))


class Undone(dict[str, Any]):
    """A template with tfpolicy's writes undone, still holding the record they came from: a
    stage that refuses it leaves the template as found, and says what that still carries
    (:mod:`tfpolicy.stages.carried`)."""

    __slots__ = ("record",)

    def __init__(self, data: dict[str, Any], record: Record) -> None:
        super().__init__(data)
        self.record = record


def undo(template: dict[str, Any],
         resources: Container[str]) -> tuple[dict[str, Any] | None, list[Note]]:
    """The template as it was before tfpolicy touched it (``None`` if that cannot be known);
    an :class:`Undone` when tfpolicy had written to it. Of the record, only what a stage
    could have written is undone, the GPU resources among ``resources`` (the rest is
    reported, :mod:`tfpolicy.stages.trust`).

    With no record to undo, that is ``template`` itself, not a copy: it is
    only read (every stage copies what it writes), and copying every
    template cost more than the rest of undo.
    """
    if not any(key in annotations_of(template) for key in (RECORD, LEGACY_RECORD)):
        return template, []
    original = clone(template)
    annotations = annotations_of(original)
    texts = {key: annotations.pop(key) for key in (RECORD, LEGACY_RECORD) if key in annotations}
    key = next(iter(texts))
    path = ("metadata", "annotations", key)
    try:
        record = decode(texts[RECORD]) if RECORD in texts else _legacy(texts, original)
    except ValueError as exc:
        return None, [Note(Severity.ERROR, "bad-record", f"cannot read {key}: {exc}", path)]
    record, notes = screen(record, resources, path)
    if any(note.severity is Severity.ERROR for note in notes):
        return None, notes  # undoing the rest would drop what the record alone keeps
    for name in MAPS:
        _restore_keys(original, name, getattr(record, name))
    _close_maps(original, record.maps)
    notes += _restore_resources(original, record.resources)
    reorder(original, record.layout)
    return Undone(original, record), notes


def _unrecordable(template: dict[str, Any], writes: Writes) -> list[Note]:
    """An error when a map to write into is not one, or a user value cannot be recorded."""
    meta = template.get("metadata")
    for name, value in (("metadata", meta), *((n, _get(meta, n)) for n in MAPS)):
        if value is not None and not isinstance(value, dict):
            message = f"{name} is not a mapping; tfpolicy does not replace it"
            return [Note(Severity.ERROR, "not-a-mapping", message, _where(name))]
    touched = {"labels": set(writes.labels),
               "annotations": {*writes.annotations, *writes.drop, *writes.remove}}
    for name, keys in touched.items():
        found = _get(meta, name) or {}
        for key in sorted(k for k in keys if k in found):
            why = unrecordable(found[key])
            if why is not None:
                return [Note(Severity.ERROR, "unrecordable-value", f"{key} {why}",
                             ("metadata", name, key))]
    return _unrecordable_resources(template, writes.resources)


def _unrecordable_resources(template: dict[str, Any], usage: Usage) -> list[Note]:
    """An error at the first removed resource whose value cannot be recorded (a GPU count
    was checked whole before; HAMi's priority, say, was not)."""
    index = {str(c.get("name", "")): i for i, c in enumerate(containers(template))}
    for name, sections in usage.items():
        for section, entries in sections.items():
            for resource, value in entries.items():
                why = unrecordable(value, RESOURCE_DEPTH)
                if why is not None:
                    path = ("spec", "containers", index[name], "resources", section, resource)
                    return [Note(Severity.ERROR, "unrecordable-value",
                                 f"{resource} in container {name!r} {why}", path)]
    return []


def _get(meta: Any, name: str) -> Any:
    return meta.get(name) if isinstance(meta, dict) else None


def _where(name: str) -> tuple[str, ...]:
    return ("metadata",) if name == "metadata" else ("metadata", name)


def _open(parent: dict[str, Any], name: str, maps: Entries) -> dict[str, Any]:
    """``parent[name]``, created (and recorded as created) when absent or null."""
    if not isinstance(parent.get(name), dict):
        maps[name] = {WAS: parent[name]} if name in parent else {}
    return child_map(parent, name)


def _put(found: dict[str, Any], values: dict[str, str], entries: Entries,
         section: str) -> list[Note]:
    notes = []
    for key, value in values.items():
        entries[key] = {WAS: found[key]} if key in found else {}
        if key in found and found[key] != value:
            message = (f"replaces the user's {key} {_short(found[key])} with {value!r}; "
                       "the record keeps it and rollback restores it")
            notes.append(Note(Severity.WARNING, "user-key-replaced", message,
                              ("metadata", section, key)))
        found[key] = value
    return notes


def _drop(found: dict[str, Any], keys: tuple[str, ...], entries: Entries) -> list[Note]:
    notes = []
    for key in (k for k in keys if k in found):
        entries[key] = {WAS: found.pop(key)}
        message = (f"removes the user's {key}, which conflicts with what the policy writes; "
                   "the record keeps it and rollback restores it")
        notes.append(Note(Severity.WARNING, "user-key-removed", message,
                          ("metadata", "annotations", key)))
    return notes


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _legacy(texts: dict[str, Any], template: dict[str, Any]) -> Record:
    """The older record named only resources; the owned keys present were tfpolicy's, and a
    map they leave empty was created by it (as that version undid them)."""
    resources = decode_legacy(texts[LEGACY_RECORD])
    meta = template.get("metadata")
    labels, annotations = (_get(meta, name) or {} for name in MAPS)
    return Record(
        labels={k: {} for k in labels if k in OWNED_LABELS},
        annotations={k: {} for k in annotations if k in OWNED_ANNOTATIONS},
        maps={name: {} for name in ("metadata", *MAPS)}, resources=resources,
    )


def _restore_keys(template: dict[str, Any], name: str, entries: Entries) -> None:
    current = _get(template.get("metadata"), name)
    for key, entry in entries.items():
        if WAS in entry:
            if not isinstance(current, dict):
                current = child_map(child_map(template, "metadata"), name)
            current[key] = entry[WAS]
        elif isinstance(current, dict):
            current.pop(key, None)


def _close_maps(template: dict[str, Any], maps: Entries) -> None:
    """Put back (or remove) each map the stage created, once undoing left it empty."""
    meta = template.get("metadata")
    for name in MAPS:
        if isinstance(meta, dict):
            _close(meta, name, maps.get(name))
    _close(template, "metadata", maps.get("metadata"))


def _close(parent: dict[str, Any], name: str, entry: dict[str, Any] | None) -> None:
    if entry is None or parent.get(name) != {}:
        return
    if WAS in entry:
        parent[name] = entry[WAS]
    else:
        del parent[name]


def _restore_resources(template: dict[str, Any], usage: Usage) -> list[Note]:
    by_name = {str(c.get("name", "")): c for c in containers(template)}
    notes = []
    for name, sections in usage.items():
        container = by_name.get(name)
        if container is None:
            message = f"container {name!r} recorded in {RECORD} no longer exists"
            notes.append(Note(Severity.WARNING, "record-container-missing", message))
            continue
        resources = child_map(container, "resources") if container.get("resources") is None \
            else container["resources"]
        for section, entries in sections.items():
            found = resources.get(section) if isinstance(resources, dict) else None
            if isinstance(resources, dict) and found is None:
                found = resources[section] = {}
            if not isinstance(found, dict):
                notes.append(_unrestorable(template, name, resources, section))
                break
            found.update(entries)
    return notes


def _unrestorable(template: dict[str, Any], name: str, resources: Any, section: str) -> Note:
    """The GPU resources cannot go back where the record says: the place is not a map."""
    items = template["spec"]["containers"]  # containers() found the named one in this list
    index = next(i for i, c in enumerate(items) if isinstance(c, dict)
                 and str(c.get("name", "")) == name)
    where = "resources" if not isinstance(resources, dict) else f"resources.{section}"
    path: tuple[str | int, ...] = ("spec", "containers", index, *where.split("."))
    message = (f"cannot give back the GPU resources {RECORD} keeps for container {name!r}: "
               f"its {where} is not a mapping")
    return Note(Severity.ERROR, "not-a-mapping", message, path)
