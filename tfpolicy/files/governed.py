"""The manifests a config governs, and what a pre-commit hook works on (docs/hosts.md,
"pre-commit").

pre-commit hands a hook the files a commit changes. A commit that changes
only ``.tfpolicy.yaml`` (``policies: [takeover-25]`` instead of
``[takeover-1]``), or a policy file a config names, changes no manifest, yet
every manifest that config governs is now behind its stage: so the hook
takes those manifests too, those and no others (the folders under the
config, minus those a nearer config or another repository governs).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.excluded import named_kept
from tfpolicy.files.listing import manifest_files
from tfpolicy.files.precommit_config import filters
from tfpolicy.files.project import lookup
from tfpolicy.files.sources import MANIFEST_SUFFIXES, read_text
from tfpolicy.policy.excludes import matching
from tfpolicy.policy.project_config import FILENAME, ProjectConfig
from tfpolicy.policy.schema import brief
from tfpolicy.records import Record

# A document of this kind, whatever the file is called (``migration.yaml`` in the
# kustomize and kpt examples, ``gpu-policy.yaml``, ...); JSON quotes the key.
POLICY_KIND = re.compile(r'^\s*"?kind"?\s*:\s*["\']?MigrationPolicy\b', re.MULTILINE)


class Expansion(Record):
    """What a hook works on: the files pre-commit passed, then those it added, each with
    the config that governs it (said when one of them is in error)."""

    files: tuple[str, ...]
    added: dict[str, str]  # normpath of an added file: the config that brought it in


def hook_files(paths: tuple[str, ...]) -> Expansion:
    """The files pre-commit passed (less those their config's ``exclude:`` leaves out),
    then every manifest a config among them governs, or a config that names a policy file
    among them, less those the repository's ``.pre-commit-config.yaml`` would not hand
    the hook; in order, each once."""
    _no_options(paths)
    configs = _touched(paths)
    passed = named_kept(paths)
    seen = {os.path.normpath(path) for path in passed}
    added: dict[str, str] = {}
    hook_filters = filters() if configs else None
    for config in sorted(configs, key=lambda c: c.path):
        for file in governed(config):
            name = os.path.normpath(file)
            if name not in seen and not (hook_filters and hook_filters.leaves_out(
                    name.replace(os.sep, "/"))):
                seen.add(name)
                added[name] = os.path.relpath(config.path)
    return Expansion((*passed, *added), added)


def added_note(error: TfpolicyError, expansion: Expansion) -> TfpolicyError:
    """``error``, said of a file the hook added rather than one pre-commit passed: how it
    came in, and both ways to leave it out."""
    config = expansion.added.get(os.path.normpath(error.file or ""))
    if config is None:
        return error
    error.message += (f" (pre-commit did not pass this file: tfpolicy added it as a manifest "
                      f"{config} governs; leave it out with `exclude:` in {config}, or with "
                      f"the hook's `exclude:` in .pre-commit-config.yaml)")
    return error


def _no_options(paths: tuple[str, ...]) -> None:
    """An option left among the file names (``args: [-p, takeover-50]`` with no ``--``
    after it) is no file: say how to write it rather than report a missing file."""
    for path in paths:
        if path.startswith("-") and not os.path.lexists(path):
            raise TfpolicyError(f"{brief(path)} is no file: options in a hook's args: must "
                                "end with '--' (args: [-p, takeover-50, --]), or go in "
                                f"{FILENAME}")


def _touched(paths: tuple[str, ...]) -> set[ProjectConfig]:
    """The configs among ``paths``, and those naming a policy file among them."""
    configs = {c for path in paths if Path(path).name == FILENAME
               if (c := lookup(Path(path).parent).config) is not None}
    policies = {Path(path).resolve() for path in paths if _holds_policy(path)}
    if policies:
        configs |= {c for c in _every_config() if _names(c, policies)}
    return configs


def _holds_policy(path: str) -> bool:
    if Path(path).name == FILENAME or not path.endswith(MANIFEST_SUFFIXES):
        return False
    return os.path.isfile(path) and bool(POLICY_KIND.search(read_text(path)))


def _names(config: ProjectConfig, policies: set[Path]) -> bool:
    return any((config.base / ref).resolve() in policies for ref in config.policies)


def _every_config() -> Iterator[ProjectConfig]:
    """Every config under the working directory (pre-commit runs at the repository root),
    each folder before its subfolders, these by name, as ``os.walk`` lists them; the
    folders still to look in are a list, so no depth of nesting reaches Python's
    recursion limit (``os.walk`` recurses before Python 3.12)."""
    pending = ["."]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = [(entry.name, _entered(entry)) for entry in listing]
        except OSError:  # as os.walk: a folder it cannot list is passed over
            continue
        if (FILENAME, None) in entries and (config := lookup(Path(folder)).config) is not None:
            yield config
        below = sorted((name for name, kind in entries if kind and name != ".git"), reverse=True)
        pending.extend(os.path.join(folder, name) for name in below)


def _entered(entry: os.DirEntry[str]) -> bool | None:
    """A subfolder ``os.walk`` enters (True), a linked folder it lists but does not enter
    (False), anything else (None)."""
    try:
        if entry.is_dir():
            return not entry.is_symlink()
    except OSError:
        pass
    return None


def governed(config: ProjectConfig) -> list[str]:
    """The YAML/JSON files git tracks under the config's folder (all of them there, when
    git knows none) that no nearer config or nested repository takes, nor its ``exclude:``
    leaves out; not symlinks, which pre-commit never passes to a hook of YAML and JSON
    files either."""
    base = os.path.relpath(config.base)
    files = _tracked(base)
    if files is None:
        files = list(manifest_files((base,)))
    stops: dict[str, bool] = {}
    return [file for file in files if not os.path.islink(file)
            and not _stopped(os.path.dirname(file) or ".", base, stops)
            and not _excluded(config, base, file)]


def _excluded(config: ProjectConfig, base: str, file: str) -> bool:
    """Whether the config's ``exclude:`` leaves ``file`` (under ``base``) out."""
    if not config.exclude:
        return False
    relative = os.path.relpath(file, base).replace(os.sep, "/")
    return matching(config.exclude, relative) is not None


def _stopped(folder: str, base: str, memo: dict[str, bool]) -> bool:
    """Whether a config or a repository between ``base`` and ``folder`` governs it: up
    from ``folder`` to the first folder known, ``base`` or one holding either; each folder
    passed is answered as that one (a loop, however deep the folder)."""
    passed = []
    current, top = folder, os.path.normpath(base)
    while True:
        parent = os.path.dirname(current) or "."
        if os.path.normpath(current) == top or parent == current:
            answer = False
            break
        if current in memo:
            answer = memo[current]
            break
        passed.append(current)
        if os.path.isfile(os.path.join(current, FILENAME)) or \
                os.path.exists(os.path.join(current, ".git")):
            answer = True
            break
        current = parent
    for each in passed:
        memo[each] = answer
    return answer


def _tracked(base: str) -> list[str] | None:
    """The YAML/JSON files git tracks under ``base`` that are there, as pre-commit names
    them; None outside a git work tree."""
    import subprocess  # here: only a run over a whole tree asks git

    try:
        # core.fsmonitor off: the repository's configuration names no program we run
        done = subprocess.run(["git", "--literal-pathspecs", "-c", "core.quotepath=off",
                               "-c", "core.fsmonitor=false", "ls-files", "-z", "--", base],
                              capture_output=True, check=False)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted(_manifests(names))


def _manifests(names: Iterable[str]) -> Iterator[str]:
    for name in names:
        if name.endswith(MANIFEST_SUFFIXES) and os.path.isfile(name):
            yield name
