"""The click group: each command imported only when it runs, and the one place that turns
exceptions into exit codes (docs/exit-codes.md).

``tfpolicy --help`` lists every command with its summary from the listing
(``tfpolicy.command_table``), so listing them imports none of them.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys

import click

from tfpolicy import version_line
from tfpolicy.command_table import (
    COMMANDS,
    GROUP_HELP,
    SECTIONS,
    SUMMARIES,
    TRACEBACK_HELP,
    VERSION_HELP,
)
from tfpolicy.errors import ExitCode, TfpolicyError


class _OutputClosedError(Exception):
    """stdout's reader went away while a command wrote to it."""


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f"tfpolicy.commands.{module}"), name)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's own listing, by the order of the work (``SECTIONS``), each command read
        from its summary rather than imported."""
        limit = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        for title, names in SECTIONS:
            rows = [(name, self._listed(ctx, name).get_short_help_str(limit)) for name in names]
            with formatter.section(title):
                formatter.write_dl(rows)

    def _listed(self, ctx: click.Context, name: str) -> click.Command:
        if name in SUMMARIES:
            return click.Command(name, help=SUMMARIES[name])
        command = self.get_command(ctx, name)  # a command without a summary is imported
        assert command is not None
        return command

    def invoke(self, ctx: click.Context) -> object:
        # click would turn EPIPE into a plain exit 1, which reads as "findings"
        # (docs/exit-codes.md).
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _OutputClosedError from None


@click.group(cls=_Group, help=GROUP_HELP,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, _param, value: _show_version(ctx, value), help=VERSION_HELP)
@click.option("--traceback", is_flag=True, help=TRACEBACK_HELP)
def cli(traceback: bool) -> None:
    """The group every command belongs to; its options are read by ``run``."""


def _show_version(ctx: click.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_line())
        ctx.exit()


def run(args: list[str]) -> int:
    """Run the command line ``args``; its exit code."""
    try:
        result = cli.main(args=args, prog_name="tfpolicy", standalone_mode=False)
        sys.stdout.flush()  # a reader gone away must show here, not after the exit code is set
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return ExitCode.INVALID
    except (KeyboardInterrupt, click.Abort):
        return ExitCode.INTERRUPTED
    except TfpolicyError as exc:
        return _fail(exc, _format(args))
    except (BrokenPipeError, _OutputClosedError):
        return broken_pipe()
    except OSError as exc:
        return write_failed(exc) if exc.errno in _WRITE_FAILED else _internal(exc, args)
    except Exception as exc:  # anything else is a bug: one line, traceback on request
        return _internal(exc, args)
    return int(result or 0)


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
