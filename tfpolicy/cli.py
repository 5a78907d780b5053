"""The command line's entry point: ``tfpolicy --version`` and ``--help`` answered here,
anything else run by the click group (``tfpolicy.commands.group``), which imports each
command only when it runs.

Hosts start tfpolicy once per file or render, so a start imports only what its command
uses: a process that applies a policy never loads the scheduler, the plan or the
recommender; ``--version``, ``--help``, a plain command line of ``check``, ``apply`` or
``fix`` and ``argocd generate`` load no command line library at all (docs/speed.md).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

_HELP_COLUMNS = 80
# The verbs hooks and hosts run most, read without click when their command line is plain
# (``tfpolicy.commands.engine_line.VERBS``, which tests/commands/test_engine_line.py holds
# to these).
_PLAIN_VERBS = ("check", "apply", "fix")


def main(argv: Sequence[str] | None = None) -> int:
    """The console script's entry (``argv`` None: this process is tfpolicy's own), or a
    command line run in the calling process."""
    if argv is not None:
        return _main(list(argv), process=False)
    if len(sys.argv) > _LONG_COMMAND_LINE:
        _return_start_up_copies()
    gc.disable()  # until the start's imports are done: see _settled
    try:
        return _main(sys.argv[1:], process=True)
    finally:
        gc.enable()


def _main(args: list[str], *, process: bool) -> int:
    if args == ["--version"]:
        return _write(_version_line())
    if args in (["--help"], ["-h"]) and _columns() >= _HELP_COLUMNS:
        return _write(help_text())
    if args and args[0] in _PLAIN_VERBS:
        from tfpolicy.commands.engine_line import run_plain

        _settled(process)
        code = run_plain(args)
        if code is not None:
            return code
    if args[:1] == ["argocd"]:  # Argo CD runs ``argocd generate`` on every render
        from tfpolicy.commands.argocd import run_plain as run_render

        _settled(process)
        code = run_render(args)
        if code is not None:
            return code
    from tfpolicy.commands.group import run  # here: click and the group, for any command

    _settled(process)
    return run(args)


def _settled(process: bool) -> None:
    """The start's imports are done. Nearly all they made (modules, functions, tables)
    lives until the exit, so the garbage collector, kept off while they ran, is told to
    leave it out of every collection from now on, the one at the exit included
    (``gc.freeze``), then let run: its passes over those objects found next to nothing
    and were a large part of a small run's CPU (docs/speed.md). Only in tfpolicy's own
    process: a caller's objects are not ours to freeze."""
    if process:
        gc.freeze()
        gc.enable()


def help_text() -> str:
    """``tfpolicy --help`` as click writes it 78 columns wide (a terminal of 80 or more,
    or no terminal), from the one listing of the commands (tests/commands/test_startup.py
    holds the two the same)."""
    from tfpolicy import command_table as table  # plain strings: no click, no command

    options = [("--version", table.VERSION_HELP), ("--traceback", table.TRACEBACK_HELP),
               ("-h, --help", table.HELP_HELP)]
    limit = _HELP_WIDTH - 6 - max(len(name) for name in table.COMMANDS)
    sections = "".join(
        f"\n{title}:\n" + _rows([(name, _short(table.SUMMARIES[name], limit)) for name in names])
        for title, names in table.SECTIONS)
    return (f"Usage: tfpolicy [OPTIONS] COMMAND [ARGS]...\n\n  {table.GROUP_HELP}\n\n"
            f"Options:\n{_rows(options)}{sections}")


_HELP_WIDTH = 78  # click's: the terminal's width less 2, at most 78


def _rows(rows: list[tuple[str, str]]) -> str:
    """click's definition list, each text short enough for one line."""
    first = max(len(term) for term, _ in rows) + 2
    return "".join(f"  {term.ljust(first)}{text}\n" for term, text in rows)


def _short(summary: str, limit: int) -> str:
    """The summary as click shortens a command's help for a listing: up to the first
    sentence's end, then as many whole words as fit before ``...``."""
    words = summary.split()
    for index, word in enumerate(words):
        if word.endswith(".") and (index == len(words) - 1 or not words[index + 1][0].islower()):
            words = words[:index + 1]
            break
    if len(" ".join(words)) <= limit:
        return " ".join(words)
    kept = ""
    for word in words:
        if len(f"{kept} {word}".lstrip()) + len("...") > limit:
            break
        kept = f"{kept} {word}".lstrip()
    return kept + "..."


def _version_line() -> str:
    from tfpolicy import version_line

    return version_line() + "\n"


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, by which click sizes its help, without the
    compression modules shutil imports."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _write(text: str) -> int:
    """What ``--version`` or ``--help`` print, without the command line library: the group
    prints the same for them among other options, or for a narrower terminal."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        from tfpolicy.commands.outcome import broken_pipe

        return broken_pipe()
    return 0


def __getattr__(name: str) -> object:
    """The click group (``cli``), the listing of the commands and ``HELP``, the text of
    ``tfpolicy --help``: each loaded when first asked for."""
    if name == "cli":
        from tfpolicy.commands.group import cli

        return cli
    if name in ("COMMANDS", "SUMMARIES"):
        from tfpolicy import command_table

        return getattr(command_table, name)
    if name == "HELP":
        return help_text()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LONG_COMMAND_LINE = 1000  # arguments; a shorter one leaves little behind


def _return_start_up_copies() -> None:
    """Hand back to the system the C heap that CPython's start-up used and freed.

    Start-up decodes the command line into several copies and frees some of
    them, beneath memory still in use; glibc returns freed heap memory to the
    system only from the top of the heap. With a full command line (the file
    names ``xargs -s`` or a wildcard hands ``fix``) megabytes stayed resident
    for the whole run, and in every worker forked from this process
    (docs/speed.md, "Figures behind the code"). ``malloc_trim`` releases them;
    outside glibc there is none.
    """
    if sys.platform != "linux":
        return
    import contextlib
    import ctypes  # here: most runs have a short command line and need none of it

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


if __name__ == "__main__":
    sys.exit(main())
