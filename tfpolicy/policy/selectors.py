"""Kubernetes LabelSelector semantics (matchLabels AND matchExpressions), with reasons."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfpolicy.records import Record


class Requirement(Record):
    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist
    values: tuple[str, ...] = ()

    def miss(self, labels: Mapping[str, Any]) -> str | None:
        """Why ``labels`` fail this requirement, or ``None`` when they satisfy it."""
        present = self.key in labels
        value = labels.get(self.key)
        ok = {
            "In": present and value in self.values,
            "NotIn": not present or value not in self.values,
            "Exists": present,
            "DoesNotExist": not present,
        }[self.operator]
        if ok:
            return None
        shown = f" {list(self.values)}" if self.values else ""
        return f"label {self.key} {self.operator}{shown} not satisfied"


class Selector(Record):
    requirements: tuple[Requirement, ...]

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Selector:
        pairs = (raw.get("matchLabels") or {}).items()
        reqs = [Requirement(str(k), "In", (str(v),)) for k, v in pairs]
        for expr in raw.get("matchExpressions") or []:
            values = tuple(str(v) for v in expr.get("values", []))
            reqs.append(Requirement(str(expr["key"]), expr["operator"], values))
        return cls(tuple(reqs))

    def miss(self, labels: Mapping[str, Any]) -> str | None:
        """The first unmet requirement; an empty selector matches everything."""
        for requirement in self.requirements:
            reason = requirement.miss(labels)
            if reason is not None:
                return reason
        return None
