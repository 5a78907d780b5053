"""The change report: every difference between the submitted and the admitted Pod."""

from __future__ import annotations

import re
from typing import Any

from tfpolicy.admission.admission_records import Change, ChangeKind

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def changes(before: Any, after: Any, path: str = "") -> list[Change]:
    """Differences in document order; dict keys compared, lists by index."""
    if isinstance(before, dict) and isinstance(after, dict):
        return _dict_changes(before, after, path)
    if isinstance(before, list) and isinstance(after, list):
        return _list_changes(before, after, path)
    if before != after:
        return [Change(ChangeKind.CHANGE, path, before, after)]
    return []


def _dict_changes(before: dict[Any, Any], after: dict[Any, Any], path: str) -> list[Change]:
    out: list[Change] = []
    for k in [*before, *(k for k in after if k not in before)]:
        sub = join_path(path, str(k))
        if k not in after and not isinstance(before[k], dict):
            out.append(Change(ChangeKind.REMOVE, sub, old=before[k]))
        elif k not in before and not isinstance(after[k], dict):
            out.append(Change(ChangeKind.ADD, sub, new=after[k]))
        elif k not in before or k not in after:
            # A whole mapping appears or goes: report its keys one by one.
            out.extend(changes(before.get(k, {}), after.get(k, {}), sub))
        else:
            out.extend(changes(before[k], after[k], sub))
    return out


def _list_changes(before: list[Any], after: list[Any], path: str) -> list[Change]:
    out: list[Change] = []
    for i in range(max(len(before), len(after))):
        sub = f"{path}[{i}]"
        if i >= len(after):
            out.append(Change(ChangeKind.REMOVE, sub, old=before[i]))
        elif i >= len(before):
            out.append(Change(ChangeKind.ADD, sub, new=after[i]))
        else:
            out.extend(changes(before[i], after[i], sub))
    return out


def join_path(path: str, key: str) -> str:
    if _PLAIN.match(key):
        return f"{path}.{key}" if path else key
    return f'{path}["{key}"]'
