"""What a refused template still carries from an earlier stage (docs/stages.md).

A stage's output depends only on the original template: tfpolicy undoes its
own writes before every stage. When the stage then refuses the template (an
error such as ``enabled-replicas`` on a bare Pod, or a placeholder count), no
edit is written at all, so the template stays exactly as the refused stage
found it, with the earlier stage's keys on it. Undoing them there would be a
write made by a stage that refused to write; instead this warning names the
stage that wrote them and the keys, so the output is not mistaken for the
refused stage's.
"""

from __future__ import annotations

from tfpolicy.findings import Severity
from tfpolicy.stages.common import TF, Note
from tfpolicy.stages.keys import AUTOSCALE, RECORD, RIGHTSIZE_ANNOTATIONS, TAKEOVER_ANNOTATIONS
from tfpolicy.stages.record import Record

_RIGHTSIZE_ONLY = RIGHTSIZE_ANNOTATIONS - TAKEOVER_ANNOTATIONS


def carried(record: Record) -> Note:
    """A warning that the template, left as found, still carries what ``record`` names."""
    keys = sorted({*record.labels, *record.annotations})
    shown = ", ".join(key.removeprefix(TF) for key in keys) or "no keys"
    removed = sorted(record.resources)
    if removed:
        shown += f"; GPU resources removed from {', '.join(map(repr, removed))}"
    message = (f"left as found: it still carries an earlier {writer(record)} stage's edits "
               f"({shown}); roll it back to see the original")
    return Note(Severity.WARNING, "earlier-stage-kept", message,
                ("metadata", "annotations", RECORD))


def writer(record: Record) -> str:
    """The stage that wrote ``record``, told by the keys only it writes."""
    if AUTOSCALE in record.annotations:
        return "rightsize (autoscale)"
    if record.resources or any(key in _RIGHTSIZE_ONLY for key in record.annotations):
        return "rightsize"
    return "takeover"
