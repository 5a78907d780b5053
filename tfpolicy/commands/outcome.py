"""The one place that turns an exception into an exit code and its one line
(docs/exit-codes.md), for a command line click reads (``tfpolicy.commands.group``) and
for one read without it (``tfpolicy.commands.engine_line``). No click here: a start
that does not load it must not load it for this.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable

from tfpolicy.errors import ExitCode, TfpolicyError


def guarded(call: Callable[[], int], args: list[str]) -> int:
    """``call``'s exit code, with stdout flushed, or the one its exception means."""
    try:
        code = call()
        sys.stdout.flush()  # a reader gone away must show here, not after the exit code is set
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except TfpolicyError as exc:
        return _fail(exc, _format(args))
    except BrokenPipeError:
        return broken_pipe()
    except OSError as exc:
        return write_failed(exc) if exc.errno in _WRITE_FAILED else _internal(exc, args)
    except Exception as exc:  # anything else is a bug: one line, traceback on request
        return _internal(exc, args)
    return code


def _internal(exc: Exception, args: list[str]) -> int:
    if "--traceback" in args:
        import traceback  # here: only a bug shows one

        traceback.print_exc()
    from tfpolicy.render import visible  # here: only a bug or an error needs it

    print(visible(f"tfpolicy: internal error: {type(exc).__name__}: {exc}"), file=sys.stderr)
    return ExitCode.INTERNAL


# A write the system refused: the disk or quota is full, a file too large, the device failed.
_WRITE_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def write_failed(exc: OSError) -> int:
    """The output could not be written whole: say so plainly, never as a bug, never 0.

    stdout is pointed at /dev/null first, so the interpreter's flush at exit cannot
    raise again; a file ``fix`` replaces is swapped in only once written whole.
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    print(f"tfpolicy: a write failed, the output is not whole: {exc.strerror}", file=sys.stderr)
    return ExitCode.IO_ERROR


def broken_pipe() -> int:
    """stdout's reader went away: the output did not get through, so never exit 0.

    Quietly, and with stdout pointed at /dev/null so the interpreter's own
    flush at exit cannot raise again (a host like ArgoCD would otherwise take a
    cut-off render for a whole one; docs/exit-codes.md).
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return ExitCode.BROKEN_PIPE


def _format(args: list[str]) -> str:
    """The ``--format`` asked for, so a CI reading annotations sees exit-2 errors too."""
    from tfpolicy.render import FORMATS  # here: only an error reads it

    for index, arg in enumerate(args):
        value = arg.partition("=")[2] if arg.startswith("--format=") else (
            args[index + 1] if arg == "--format" and index + 1 < len(args) else "")
        if value in FORMATS:
            return value
    return "text"


def _fail(exc: TfpolicyError, fmt: str = "text") -> int:
    from tfpolicy.findings import error_finding  # here: only an error needs them
    from tfpolicy.policy.model import PolicyInvalidError
    from tfpolicy.render import FORMATS, visible

    if isinstance(exc, PolicyInvalidError):  # every violation, in the format asked for
        sys.stderr.write(FORMATS[fmt](exc.findings))
        return ExitCode.INVALID
    if fmt != "text":
        sys.stderr.write(FORMATS[fmt]([error_finding(exc.message, exc.file, exc.line,
                                                      exc.column)]))
        return int(exc.exit_code)
    # The file and the message as every text report shows a name: a file's name cannot
    # add a line, nor a name quoted in the message act on the terminal.
    text = str(exc)
    where = ":".join(str(part) for part in (exc.file, exc.line, exc.column) if part is not None)
    if where and text.startswith(f"{where}: "):
        message = visible(text[len(where) + 2:], lines=True)
        print(f"{visible(where)}: {exc.verdict}: {message}", file=sys.stderr)
    else:
        print(f"{exc.speaker}: {exc.verdict}: {visible(text, lines=True)}", file=sys.stderr)
    return int(exc.exit_code)
