"""Which files a config's ``exclude:`` leaves out of a walk (docs/hosts.md, "Excluding
files"): the edge of ``tfpolicy.policy.excludes``, which matches.

A folder walked takes the ``exclude:`` of the config that governs it, the
nearest ``.tfpolicy.yaml`` at or above it (``tfpolicy.files.project``); a
folder below holding its own config takes that one's instead, as each file
takes its nearest config's policies.
"""

from __future__ import annotations

import os
from pathlib import Path

from tfpolicy.files.project import lookup
from tfpolicy.policy.excludes import matching, matching_one
from tfpolicy.policy.project_config import ProjectConfig
from tfpolicy.records import Record, field


class Rules(Record):
    """A config's globs, and where a walked folder stands under the config's folder
    (``prefix``: "" there, else the folder's path below it and a ``/``)."""

    globs: tuple[str, ...]
    prefix: str

    def drops(self, name: str) -> str | None:
        """The glob that leaves out ``name``, an entry of the walked folder; None: kept."""
        return matching_one(self.globs, self.prefix + name)

    def below(self, name: str) -> Rules:
        return Rules(self.globs, f"{self.prefix}{name}/")


def rules_at(folder: str) -> Rules | None:
    """The rules for a walk starting at ``folder``; None where no config there excludes."""
    return rules_of(lookup(Path(folder)).config, folder)


def rules_of(config: ProjectConfig | None, folder: str) -> Rules | None:
    """The rules ``config`` sets for ``folder``, at or under its folder; None: no glob."""
    if config is None or not config.exclude:
        return None
    relative = os.path.relpath(os.path.realpath(folder or "."), config.base)
    return Rules(config.exclude, "" if relative == "." else relative.replace(os.sep, "/") + "/")


class Named(Record):
    """Whether named files are left out, each folder's config looked up once."""

    _folders: dict[str, Rules | None] = field(default_factory=dict)

    def drops(self, file: str) -> str | None:
        """The glob of the config governing ``file`` that leaves it out; None: kept."""
        folder = os.path.dirname(file) or "."
        if folder not in self._folders:
            self._folders[folder] = rules_at(folder)
        rules = self._folders[folder]
        if rules is None:
            return None
        return matching(rules.globs, rules.prefix + os.path.basename(file))


def named_kept(files: tuple[str, ...]) -> tuple[str, ...]:
    """``files`` less those their config's ``exclude:`` leaves out (what a hook is handed,
    as ruff's ``--force-exclude`` filters the files pre-commit passes)."""
    rules = Named()
    return tuple(file for file in files if rules.drops(file) is None)
