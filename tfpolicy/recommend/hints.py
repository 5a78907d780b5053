"""What policies given to ``recommend -p`` say of pre-allocating servers (docs/recommend.md).

``spec.frameworks`` rows extend the framework table; a ``spec.workloads[]``
entry's ``modelWeights`` and ``workingMemory`` give a workload's model size per
GPU. An entry applies to a workload when its match's ``namespaces``, ``kinds``
and ``names`` (shell globs, absent = any) all take it; the first entry that
gives a size wins. Selectors are not read here: an entry with one is ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from tfpolicy.errors import TfpolicyError
from tfpolicy.frameworks.framework_table import Framework, from_policy
from tfpolicy.frameworks.sizing import Given
from tfpolicy.gpus.quantity import QuantityError, parse_quantity
from tfpolicy.recommend.mapping import WorkloadId

_MAX = 16 << 40


def frameworks(docs: Sequence[Mapping[str, Any]]) -> tuple[Framework, ...]:
    return tuple(f for doc in docs for f in from_policy(doc["spec"].get("frameworks", [])))


def sizes(docs: Sequence[Mapping[str, Any]]) -> Callable[[WorkloadId], Given]:
    """Per workload, the first entry's model size (schema-valid documents)."""
    entries = [(w["match"], _given(w)) for doc in docs for w in doc["spec"].get("workloads", [])
               if "modelWeights" in w or "workingMemory" in w]

    def given(workload: WorkloadId) -> Given:
        for match, sized in entries:
            if _takes(match, workload):
                return sized
        return Given()

    return given


def _given(entry: Mapping[str, Any]) -> Given:
    return Given(_bytes(entry.get("modelWeights"), "modelWeights"),
                 _bytes(entry.get("workingMemory"), "workingMemory"))


def _bytes(value: Any, name: str) -> int | None:
    if value is None:
        return None
    try:
        amount = parse_quantity(value)
    except QuantityError as exc:
        raise TfpolicyError(f"{name}: {exc}") from None
    if not 0 < amount <= _MAX:
        raise TfpolicyError(f"{name} {value!r} must be above 0 and at most 16Ti")
    return int(amount)


def _takes(match: Mapping[str, Any], workload: WorkloadId) -> bool:
    if "selector" in match or "podSelector" in match:
        return False
    fields = (("namespaces", workload.namespace), ("kinds", workload.kind),
              ("names", workload.name))
    return all(key not in match or any(fnmatchcase(value, glob) for glob in match[key])
               for key, value in fields)
