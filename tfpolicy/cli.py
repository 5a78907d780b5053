"""The command line's entry point: ``tfpolicy --version`` answered here, anything else run
by the click group (``tfpolicy.commands.group``), which imports each command only when it
runs.

Hosts start tfpolicy once per file or render, so a start imports only what its command
uses: a process that applies a policy never loads the scheduler, the plan or the
recommender, and ``--version`` loads no command line library at all (docs/speed.md).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and len(sys.argv) > _LONG_COMMAND_LINE:
        _return_start_up_copies()
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        return _version()
    from tfpolicy.commands.group import run  # here: click and the group, for any command

    return run(args)


def _version() -> int:
    """``tfpolicy --version`` without the command line library: the group prints the same
    line for ``--version`` among other options."""
    from tfpolicy import version_line

    try:
        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        from tfpolicy.commands.group import broken_pipe

        return broken_pipe()
    return 0


def __getattr__(name: str) -> Any:
    """The click group (``cli``) and its tables of commands, loaded when first asked for."""
    if name in ("cli", "COMMANDS", "SUMMARIES"):
        from tfpolicy.commands import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LONG_COMMAND_LINE = 1000  # arguments; a shorter one leaves little behind


def _return_start_up_copies() -> None:
    """Hand back to the system the C heap that CPython's start-up used and freed.

    Start-up decodes the command line into several copies and frees some of
    them, beneath memory still in use; glibc returns freed heap memory to the
    system only from the top of the heap. With a full command line (34,700
    file names, as ``xargs -s`` or a wildcard hands ``fix``) some 17 MB stayed
    resident for the whole run, and in every worker forked from this process.
    ``malloc_trim`` releases it; outside glibc there is none.
    """
    if sys.platform != "linux":
        return
    import ctypes  # here: most runs have a short command line and need none of it

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


if __name__ == "__main__":
    sys.exit(main())
