"""``tfpolicy fix``: rewrite files in place, only changed ones (pre-commit style).

What it guarantees about concurrent edits, links and temp files is in
``tfpolicy.files.output`` and the README's ``fix`` section.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

from tfpolicy.commands.options import HookCommand, command, engine_options, jobs_option, resolve
from tfpolicy.commands.printing import emit_file_findings, emit_findings
from tfpolicy.commands.rewrite import BOM, Rewrite, rewrite_files
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.output import Writes, clean_stale
from tfpolicy.files.swap import Kept
from tfpolicy.findings import Finding, Severity, has_errors


@command("fix", HookCommand)
@engine_options
@jobs_option
# Plain strings: ``click.Path`` stats every name it is given, thousands from a hook, and
# the paths are stat'ed when they are read anyway.
@click.argument("paths", nargs=-1, type=str)
def fix(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
        paths: tuple[str, ...]) -> int:
    """Rewrite the files in place, each replaced only while it is still as it was read
    (``tfpolicy.files.output``); the names rewritten on stdout once every write is done."""
    run = resolve(policies, namespace, fmt, explain)
    written: list[str] = []
    taken = Taken(names=run.fmt == "junit")
    with Writes(Path.cwd()) as writes:  # whatever goes wrong, no temp file stays
        _, findings, _ = rewrite_files(run, paths, keep_unchanged=False, keep_changes=False,
                                       each=_staged(writes, taken))
        clean_stale(taken.real_folders(), keep=writes.temps())
        try:
            moved = writes.commit(written.append)
        except TfpolicyError:  # a writer's bytes kept aside are reported even then
            emit_findings([_kept(*pair) for pair in writes.conflicts()], run.fmt, err=True)
            raise
        kept = [_kept(*pair) for pair in writes.conflicts()]
    # Printed once every write is done: a closed stdout cannot stop fix half-way.
    click.echo("".join(f"Fixing {name}\n" for name in written), nl=False)
    findings += [_moved(name) for name in moved] + kept
    emit_file_findings(findings, run.fmt, taken.checked, err=True, rewritten=taken.rewritten)
    return ExitCode.FINDINGS if taken.changed or has_errors(findings) else ExitCode.OK


class Taken:
    """Of the files the engine took, what fix needs once all are through: the folders
    they are in (to clean stale temp files from) and whether any was rewritten. Their
    names only for a JUnit report, which lists every file: otherwise a hook's or a
    wildcard's 50,000 names would be held a second time."""

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
        resolved once: resolving 20,000 files of one folder one by one cost more than
        the rest of the cleanup."""
        return self._linked | {Path(folder).resolve() for folder in self._folders}


def _staged(writes: Writes, taken: Taken) -> Callable[[Rewrite], None]:
    """Each changed file's new bytes handed to ``writes`` as the file comes out of the
    engine, while later files are still in it, so the new text is held only until its
    temp file is written."""
    def stage(rewrite: Rewrite) -> None:
        taken.add(rewrite.path, rewrite.changed)
        if rewrite.changed:
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
