"""What a kind of object is made of, as the registry reads it (docs/kinds.md): where its pods'
labels, annotations and containers are, and what it reports instead of migrating.

Paths use ``.`` between fields, ``*`` for any key of a mapping or item of a
list, and ``[*]``/``[N]`` for list items, so users can add their own kinds
in a policy's ``podTemplates``. The built-in kinds are in :mod:`.kinds`.
"""

from __future__ import annotations

import re

from tfpolicy.records import Record

ANY = "*"
_TOKEN = re.compile(r"\[(\*|[0-9]+)\]|([^.\[\]]+)")
Pattern = tuple[str | int, ...]


def parse_template_path(text: str) -> Pattern:
    """``spec.workers[*].template`` → ``("spec", "workers", "*", "template")``."""
    if not text:
        return ()
    out: list[str | int] = []
    for match in _TOKEN.finditer(text):
        index, name = match.groups()
        out.append(name if name is not None else (ANY if index == "*" else int(index)))
    return tuple(out)


# How a controller names the containers of a slot (``Slot.rule``); the name matters,
# since ``inject-container`` and the record name containers as the pod will have them.
IF_MISSING = "if-missing"  # ``name`` for a container without one
ALWAYS = "always"  # ``name`` whatever the container is called
# KServe's custom component: only when no other slot holds a container (a framework key
# comes first), the first container gets ``name`` when it is alone or has none (FIRST),
# or whatever it is called (FIRST_ALWAYS).
FIRST = "first"
FIRST_ALWAYS = "first-always"
NUMBERED = "numbered"  # ``name`` when alone, else ``name-N``, avoiding the names in use


class Slot(Record):
    """Where containers of a shape are, and the name their controller gives them."""

    pattern: Pattern
    name: str = ""
    rule: str = IF_MISSING


class Shape(Record):
    """A pod whose parts live apart, relative to ``anchor``: ``meta`` holds its
    ``labels``/``annotations``, ``spec`` its pod-level fields, each ``containers``
    slot some of its containers (a ``(pattern, name)`` pair, as a policy's ``podTemplates``
    give, is a slot whose containers get ``name`` when they have none).
    When ``shared`` exists, the same labels reach another pod spec too, and no
    annotation could say what each of them needs: the shape is refused with ``why``.
    ``added`` names the containers the controller adds to every such pod (Knative's
    queue-proxy): they have no field here, but they make the pod one of several
    containers, which TensorFusion's webhook refuses without ``inject-container``."""

    anchor: Pattern
    meta: Pattern
    spec: Pattern | None
    containers: tuple[Slot | tuple[Pattern, str], ...]
    shared: Pattern | None = None
    why: str = ""
    added: tuple[str, ...] = ()


class ServiceShape(Record):
    """A Dynamo service at ``anchor``: its pod's metadata, containers and GPU count are its
    own fields, read by :mod:`tfpolicy.workloads.dynamo`; with ``template`` (v1beta1's
    ``podTemplate``), the pod is that whole template below it."""

    anchor: Pattern
    template: str = ""


class Report(Record):
    """GPU resources at ``path`` that no field of the kind can migrate, and why. With
    ``missing``, the pod asks for GPUs no resource names: reported at ``path`` (which
    exists) when none of the fields ``missing`` names below it gives a GPU (a mapping
    naming one, or any other non-empty value: a NIMService's ``draResources``), and,
    with ``when``, that boolean field below it is ``true`` (the controller makes that pod)."""

    path: Pattern
    reason: str
    missing: tuple[Pattern, ...] = ()
    when: Pattern | None = None
    # With ``named``, the field is reported when it is a string that pattern matches whole
    # (a KubeAI profile naming a GPU), found in a text holding ``marker``.
    named: str = ""
    marker: str = ""


class Sidecar(Record):
    """A container the controller adds to the pods of the whole template at ``template``
    when the field at ``when`` is ``true`` (KubeRay's autoscaler on a head pod): like a
    shape's ``added``, it makes the pod one of several containers."""

    template: Pattern
    name: str
    when: Pattern


class TemplateKind(Record):
    group: str  # "" = the core group
    kind: str
    paths: tuple[Pattern, ...]
    shapes: tuple[Shape | ServiceShape, ...] = ()
    reports: tuple[Report, ...] = ()
    nested: tuple[Pattern, ...] = ()  # embedded objects whose own kind says where pods are
    refused: tuple[Report, ...] = ()  # whole pod templates seen, and counted, but not migrated
    sidecars: tuple[Sidecar, ...] = ()
