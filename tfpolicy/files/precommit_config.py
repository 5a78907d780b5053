"""What the repository's ``.pre-commit-config.yaml`` leaves out of the files a hook takes
(docs/hosts.md, "pre-commit"), read as data.

pre-commit hands a hook only the files its top-level ``files``/``exclude``
and the hook's own take, and never tells the hook those patterns. The files
a hook adds (the manifests a changed config governs, ``tfpolicy.files.governed``)
must be held to the same: each pattern a Python regular expression, tried
with ``re.search`` on the path from the repository root, as pre-commit does
(pre-commit/pre-commit pre_commit/commands/run.py:60,
``filter_by_include_exclude``; ``files`` defaults to ``''``, ``exclude`` to
``^$``). pre-commit does not say which hook runs: a file is added when the
top-level patterns and those of some hook that runs ``tfpolicy check`` or
``tfpolicy fix`` (the ids ``tfpolicy-check``, ``tfpolicy-fix``, or a local
hook's ``entry``) take it.
"""

from __future__ import annotations

import os
import re
from typing import Any

from tfpolicy import yamlio
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.sources import read_text
from tfpolicy.records import Record

FILENAME = ".pre-commit-config.yaml"
_IDS = frozenset({"tfpolicy-check", "tfpolicy-fix"})
_ENTRY = re.compile(r"\btfpolicy\s+(?:check|fix)\b")


class Filter(Record):
    """One ``files``/``exclude`` pair."""

    files: re.Pattern[str]
    exclude: re.Pattern[str]

    def takes(self, name: str) -> bool:
        return bool(self.files.search(name)) and not self.exclude.search(name)


class Filters(Record):
    """The top-level pair, and each tfpolicy check/fix hook's (none: the top level alone)."""

    top: Filter
    hooks: tuple[Filter, ...]

    def leaves_out(self, name: str) -> str:
        """Why pre-commit would not hand ``name`` (from the repository root) to the hook:
        empty when it would."""
        if not self.top.takes(name):
            return f"the top-level files/exclude of {FILENAME}"
        if self.hooks and not any(hook.takes(name) for hook in self.hooks):
            return f"the hook's files/exclude in {FILENAME}"
        return ""


def filters(root: str = ".") -> Filters | None:
    """The filters of ``root``'s ``.pre-commit-config.yaml``; None when there is none."""
    path = os.path.join(root, FILENAME)
    if not os.path.isfile(path):
        return None
    docs = yamlio.load_all(read_text(path), file=FILENAME)
    data = docs[0] if docs else {}
    if not isinstance(data, dict):
        raise TfpolicyError("not a mapping: pre-commit's configuration is one", file=FILENAME)
    hooks = tuple(_pair(hook, f"hook {hook.get('id')!r}") for hook in _hooks(data))
    return Filters(_pair(data, "the top level"), hooks)


def _hooks(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The hooks that run tfpolicy check or fix, of every repository listed."""
    repos = data.get("repos") or []
    found = []
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            if isinstance(hook, dict) and _runs_tfpolicy(hook):
                found.append(hook)
    return found


def _runs_tfpolicy(hook: dict[str, Any]) -> bool:
    return hook.get("id") in _IDS or bool(_ENTRY.search(str(hook.get("entry") or "")))


def _pair(data: dict[str, Any], where: str) -> Filter:
    return Filter(_regex(data, "files", "", where), _regex(data, "exclude", "^$", where))


def _regex(data: dict[str, Any], key: str, default: str, where: str) -> re.Pattern[str]:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise TfpolicyError(f"{key} of {where} is not a regular expression string",
                            file=FILENAME)
    try:
        return re.compile(value)
    except re.error as exc:
        raise TfpolicyError(f"{key} of {where} is not a Python regular expression: {exc}",
                            file=FILENAME) from None
