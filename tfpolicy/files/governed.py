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
from tfpolicy.files.listing import manifest_files
from tfpolicy.files.project import lookup
from tfpolicy.files.sources import MANIFEST_SUFFIXES, read_text
from tfpolicy.policy.project_config import FILENAME, ProjectConfig
from tfpolicy.policy.schema import brief

# A document of this kind, whatever the file is called (``migration.yaml`` in the
# kustomize and kpt examples, ``gpu-policy.yaml``, ...); JSON quotes the key.
POLICY_KIND = re.compile(r'^\s*"?kind"?\s*:\s*["\']?MigrationPolicy\b', re.MULTILINE)


def hook_files(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The files pre-commit passed, then every manifest a config among them governs, or a
    config that names a policy file among them; in order, each once."""
    _no_options(paths)
    configs = _touched(paths)
    seen = {os.path.normpath(path) for path in paths}
    extra: list[str] = []
    for config in sorted(configs, key=lambda c: c.path):
        for file in governed(config):
            if os.path.normpath(file) not in seen:
                seen.add(os.path.normpath(file))
                extra.append(file)
    return (*paths, *extra)


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
    git knows none) that no nearer config or nested repository takes; not symlinks, which
    pre-commit never passes to a hook of YAML and JSON files either."""
    base = os.path.relpath(config.base)
    files = _tracked(base)
    if files is None:
        files = list(manifest_files((base,)))
    stops: dict[str, bool] = {}
    return [file for file in files if not os.path.islink(file)
            and not _stopped(os.path.dirname(file) or ".", base, stops)]


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
