"""What the commands write on stdout and stderr besides their own text: reports written
whole and flushed (or into ``-o FILE``), the count of GPU requests not migrated, the line
that says the folders named held no manifest, and a progress line for a person watching."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tfpolicy.findings import Finding, Severity, not_migrated, not_migrated_line
from tfpolicy.render import FORMATS, MACHINE, junit, visible

if TYPE_CHECKING:
    from tfpolicy.files.in_place import Fixed
    from tfpolicy.files.runner import Ran
    from tfpolicy.files.scopes import Run


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """One message, flushed at once as ``click.echo`` flushes it, so that what stdout and
    stderr say interleaves as it was said; the commands that read their command line
    without click write through here too."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{text}\n" if nl else text)
    stream.flush()


def emit_not_migrated(findings: list[Finding], fmt: str) -> None:
    """The count of GPU requests not migrated, by reason, on stderr (nothing when none, nor
    beside a report a program reads, whose findings carry the rules to count)."""
    line = "" if fmt in MACHINE else not_migrated_line(not_migrated(findings))
    if line:
        sys.stderr.write(line)
        sys.stderr.flush()


def none_found(files: int, paths: tuple[str, ...]) -> None:
    """One line on stderr when the folders named hold no manifest (``files``: how many
    they hold): exit 0 then says the folders were empty, never that their manifests were
    looked at and fine."""
    if not files:
        named = ", ".join(visible(path) for path in paths)
        say(f"tfpolicy: no manifest files (.yaml, .yml, .json) in {named}: nothing to do",
            err=True)


def tell_passed_over(ran: Ran, run: Run, paths: tuple[str, ...]) -> None:
    """What a run over files passed over, on stderr: that the folders named held no
    manifest (not for a hook, which names a commit's files), and under ``--explain``
    each file skipped, and why."""
    if not run.hook:
        none_found(ran.files, paths)
    if run.options.explain:
        for path, reason in ran.skipped:
            say(visible(f"tfpolicy: skipped {path}: {reason}"), err=True)


def tell_fixed(fixed: Fixed, run: Run, paths: tuple[str, ...]) -> None:
    """What ``fix`` says once every write is done (so that a closed stdout cannot stop
    it half-way): the files it passed over, each file it rewrote, and the findings."""
    tell_passed_over(fixed.ran, run, paths)
    say("".join(f"Fixing {visible(name)}\n" for name in fixed.written), nl=False)
    emit_file_findings(fixed.findings, run.fmt, fixed.checked, err=True,
                       rewritten=fixed.rewritten)


def emit_findings(findings: list[Finding], fmt: str, *, err: bool) -> None:
    emit_report(FORMATS[fmt](findings), err=err)


def emit_file_findings(findings: list[Finding], fmt: str, files: Sequence[str], *, err: bool,
                       fail_on: Severity = Severity.ERROR,
                       rewritten: Collection[str] = ()) -> None:
    """The findings of a run over ``files``; JUnit gives each file its case, clean ones
    passing, so a report's count is the files checked, not the ones with findings."""
    if fmt == "junit":
        emit_report(junit(findings, files=files, fail_on=fail_on, rewritten=rewritten),
                    err=err)
    else:
        emit_findings(findings, fmt, err=err)


def emit_report(text: str, *, err: bool) -> None:
    """A report already rendered, written whole and flushed (nothing when empty)."""
    if text:
        stream = sys.stderr if err else sys.stdout
        stream.write(text)
        stream.flush()


def write_report(report: str, output: str | None, command: str,
                 elsewhere: str = "another path") -> None:
    """A report on stdout, or into ``-o FILE`` whole or not at all, which stderr then says
    (``elsewhere``: what to choose instead of a symlink there)."""
    if output is None:
        sys.stdout.write(report)
        return
    from tfpolicy.files.install import install_file  # here: the engine verbs write no report

    install_file(Path(output), report.encode(), 0o644, elsewhere=elsewhere)
    sys.stderr.write(f"{command}: report written to {visible(output)}\n")


def watched_progress(command: str) -> Callable[[str], None] | None:
    """A one-line progress report on stderr, only when a person watches it."""
    if not sys.stderr.isatty():
        return None

    def tell(what: str) -> None:
        sys.stderr.write(f"\r\033[K{command}: {visible(what)}…")
        sys.stderr.flush()

    return tell
