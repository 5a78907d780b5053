"""The records of the GPU request finder (:mod:`tfpolicy.workloads.finder`): a request, what
the engine knows of its object, and a request it did not migrate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfpolicy.edits import Path
from tfpolicy.findings import Severity
from tfpolicy.records import Record
from tfpolicy.workloads.dra import ClaimIndex

# What a request is: a resource of a ``resources`` block, a pod's DRA claim, a claim's
# device request, or a custom resource's field asking GPUs by profile or count.
RESOURCE, DRA_POD, DRA_CLAIM, PROFILE = "resource", "dra-pod", "dra-claim", "profile"


class GpuRequest(Record):
    """One resource of one ``resources`` block (``path`` ends with its name), or one of the
    other shapes ``kind`` names (``resource``: the claim, the device class, the field)."""

    path: Path
    resource: str
    value: Any
    kind: str = RESOURCE


class Unmigrated(Record):
    """A GPU request no pod template migrated or reported: where, which rule, and why."""

    path: Path
    rule: str
    message: str
    severity: Severity = Severity.WARNING


class Known(Record):
    """What the engine knows of the object: whether the registry has its kind, the paths
    it migrated or reported, which names its providers and HAMi count, and the input's DRA
    claims (``None``: this object's document is all that was read)."""

    kind_known: bool
    handled: tuple[Path, ...]
    configured: Callable[[str], bool]
    claims: ClaimIndex | None = None
