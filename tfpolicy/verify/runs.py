"""Which run of a ``generateName`` object the cluster made: the API server names it
``<prefix><5 random characters>``, so the manifest's object is matched by its kind, its
namespace and a name that starts with the prefix, through the pods' owner references.

Each apply of such a manifest makes a new run; verify expects the newest, the run whose
first pod was created last (pods' ``creationTimestamp``, then the name). When several
objects of the input share one prefix, their runs cannot be told apart: none is matched,
and each such workload waits with a problem that says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from tfpolicy.records import replace
from tfpolicy.verify.cluster_snapshot import Snapshot, namespace_of
from tfpolicy.verify.expect import Expected
from tfpolicy.verify.matching import Owners, candidates
from tfpolicy.verify.verdicts import Problem, Verdict

Started = Mapping[tuple[str, str, str], str]  # (kind, namespace, name) → its first pod's time


def with_runs(expected: tuple[Expected, ...], snapshot: Snapshot, owners: Owners
              ) -> tuple[Expected, ...]:
    """The expectations, each ``generateName`` one named after the run it is matched to."""
    if not any(e.generate_name and not e.name for e in expected):
        return expected
    shared = Counter(_prefix(e) for e in expected if e.generate_name and not e.name)
    started = _started(snapshot, owners)
    return tuple(_named(e, started) if shared[_prefix(e)] == 1 else e for e in expected)


def shared_prefix(expected: Expected, every: tuple[Expected, ...]) -> list[Problem]:
    """A wait when the workload's runs cannot be told from another object's."""
    if not expected.generate_name or expected.name:
        return []
    others = sum(_prefix(e) == _prefix(expected) for e in every if not e.name)
    if others < 2:
        return []
    return [Problem(Verdict.WAIT, expected.key,
                    f"{others} objects of the manifests are named by generateName "
                    f"{expected.generate_name!r}: verify cannot tell which run is whose; "
                    "give each its own prefix")]


def _prefix(expected: Expected) -> tuple[str, str, str]:
    return expected.kind, expected.namespace, expected.generate_name


def _started(snapshot: Snapshot, owners: Owners) -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    for pod in snapshot.of("Pod"):
        namespace, created = namespace_of(pod), _created(pod)
        for kind, name in candidates(pod, owners, namespace):
            key = (kind, namespace, name)
            found[key] = min(found.get(key, created), created)
    return found


def _created(pod: Mapping[str, Any]) -> str:
    raw = pod.get("metadata")
    value = raw.get("creationTimestamp") if isinstance(raw, Mapping) else None
    return str(value or "")


def _named(expected: Expected, started: Started) -> Expected:
    prefix = expected.generate_name
    runs = [(created, name) for (kind, namespace, name), created in started.items()
            if (kind, namespace) == (expected.kind, expected.namespace)
            and name.startswith(prefix) and len(name) > len(prefix)]
    return replace(expected, name=max(runs)[1]) if runs else expected

