"""``fix``'s run: the engine over files, each changed one replaced in place.

Each changed file's new bytes are staged as it comes out of the engine and
committed once every file went through (``tfpolicy.files.output``, whose
contract says what ``fix`` guarantees about concurrent edits, links and temp
files; the README's ``fix`` section says it to users).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.canary_order import presumed
from tfpolicy.files.output import Writes, clean_stale
from tfpolicy.files.runner import BOM, Ran, Rewrite, Unsettled, rewrite_files
from tfpolicy.files.scopes import Run
from tfpolicy.files.swap import Kept
from tfpolicy.findings import Finding, Severity
from tfpolicy.records import Record
from tfpolicy.rewrite.engine import PolicySet


class Fixed(Record):
    """What a fix did: the files replaced (in order), the findings (the engine's, and
    the files another program wrote meanwhile), the files checked and rewritten (for a
    JUnit report), whether any file changed, the run over the files, and what it ran
    with."""

    written: list[str]
    findings: list[Finding]
    checked: list[str]
    rewritten: list[str]
    changed: bool
    ran: Ran
    run: Run


def fix_files(run: Run, paths: tuple[str, ...],
              kept_aside: Callable[[list[Finding]], None]) -> Fixed:
    """Every file ``paths`` name rewritten in place where it changes. Should the commit
    fail part-way, ``kept_aside`` is told the bytes of other writers kept aside so far
    before the error goes up: nothing is lost unsaid.

    Where the first pass would only look for DRA objects, the files are read once,
    presuming there are none (``canary_order.presumed``); should one turn up, or an
    error, that run is dropped before anything is replaced (its temp files with it)
    and all is done again with the pass, which says the same error the same way.
    """
    without_pass = presumed(run)
    if without_pass is not None:
        try:
            return _fixed(without_pass, paths, kept_aside, watch=run.policies)
        except Unsettled:
            pass
    return _fixed(run, paths, kept_aside)


def _fixed(run: Run, paths: tuple[str, ...], kept_aside: Callable[[list[Finding]], None],
           watch: PolicySet | None = None) -> Fixed:
    written: list[str] = []
    taken = Taken(names=run.fmt == "junit")
    with Writes(Path.cwd()) as writes:  # whatever goes wrong, no temp file stays
        ran = rewrite_files(run, paths, keep_unchanged=False, keep_changes=False,
                            each=_staged(writes, taken), watch=watch)
        clean_stale(taken.real_folders(), keep=writes.temps())
        try:
            moved = writes.commit(written.append)
        except TfpolicyError:
            kept_aside([_kept(*pair) for pair in writes.conflicts()])
            raise
        kept = [_kept(*pair) for pair in writes.conflicts()]
    findings = ran.findings + [_moved(name) for name in moved] + kept
    return Fixed(written, findings, taken.checked, taken.rewritten, taken.changed, ran, run)


class Taken:
    """Of the files the engine took, what fix needs once all are through: the folders
    they are in (to clean stale temp files from) and whether any was rewritten. Their
    names only for a JUnit report, which lists every file: otherwise the tens of
    thousands of names a hook or a wildcard gives would be held a second time."""

    def __init__(self, *, names: bool = False) -> None:
        self.changed = False
        self._names = names  # kept only for a report that lists every file (JUnit)
        self.checked: list[str] = []
        self.rewritten: list[str] = []
        self._folders: set[str] = set()  # of files that are not links: not yet resolved
        self._linked: set[Path] = set()  # of links: their targets' folders

    def add(self, path: str, changed: bool) -> None:
        self.changed = self.changed or changed
        if self._names:
            self.checked.append(path)
            self.rewritten += [path] if changed else []
        if os.path.islink(path):
            self._linked.add(Path(path).resolve().parent)
        else:
            self._folders.add(os.path.dirname(path) or ".")  # not normalised: ".." after a link

    def real_folders(self) -> set[Path]:
        """The folder each file really is in (a symlink's: its target's), each folder
        resolved once, not each of its files (docs/speed.md, "Figures behind the
        code")."""
        return self._linked | {Path(folder).resolve() for folder in self._folders}


def _staged(writes: Writes, taken: Taken) -> Callable[[Rewrite], None]:
    """Each changed file's new bytes handed to ``writes`` as the file comes out of the
    engine, while later files are still in it, so the new text is held only until its
    temp file is written."""
    def stage(rewrite: Rewrite) -> None:
        taken.add(rewrite.path, rewrite.changed)
        if rewrite.seen is not None:  # changed: what was read, to check before replacing it
            writes.add(rewrite.path, _bytes(rewrite), rewrite.seen)
    return stage


def _bytes(rewrite: Rewrite) -> bytes:
    return (BOM if rewrite.bom else b"") + rewrite.text.encode("utf-8")


def _kept(name: str, copy: Kept) -> Finding:
    """Another program wrote to a file between fix's last check and its replacement (or
    held it open to write): fix's version is in place, the other program's bytes are
    kept beside it; nothing is lost."""
    why = ("was open for writing by another program when fix replaced it: what that "
           "program writes goes to" if copy.open else
           "changed while fix replaced it: the version with the other change is kept in")
    return Finding(Severity.ERROR, f"{why} {os.path.relpath(copy.path)}, fix's rewrite is in "
                   "place (merge the copy, remove it, run fix again)", "changed-during-fix",
                   file=name, line=1, column=1)


def _moved(name: str) -> Finding:
    """A file edited while fix ran keeps the edit; the user runs fix again."""
    return Finding(Severity.ERROR, "changed while fix ran: left as it is (run fix again)",
                   "changed-during-fix", file=name, line=1, column=1)
