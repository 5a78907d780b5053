"""The command line: one group, an explicit command registry, and the one place that
turns exceptions into exit codes (DESIGN §3)."""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

import click

from tfpolicy import __version__, build_commit
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.findings import error_finding
from tfpolicy.policy.model import PolicyInvalid
from tfpolicy.render import FORMATS

# Each command by its module and name, imported only when it runs: a process that applies a
# policy never loads the scheduler, the plan or the recommender (a tenth of a second each
# start, and hosts start tfpolicy once per file or render).
COMMANDS: dict[str, tuple[str, str]] = {
    "apply": ("apply", "apply"), "check": ("check", "check"), "fix": ("fix", "fix"),
    "validate": ("validate", "validate"), "krm": ("krm", "krm"),
    "kustomize": ("kustomize", "kustomize"), "argocd": ("argocd", "argocd"),
    "admission": ("admission", "admission"), "plan": ("plan", "plan"),
    "recommend": ("recommend", "recommend_cmd"), "verify": ("verify", "verify_command"),
    "gpus": ("gpus", "gpus"), "init": ("init", "init"),
    "promote": ("promote", "promote"),
}


class _OutputClosed(Exception):
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

    def invoke(self, ctx: click.Context) -> object:
        # click would turn EPIPE into a plain exit 1, which reads as "findings" (DESIGN §3).
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _OutputClosed from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, _param, value: _show_version(ctx, value),
              help="Show the version and the commit it was built from, and exit.")
@click.option("--traceback", is_flag=True, help="Show the traceback of an internal error.")
def cli(traceback: bool) -> None:
    """Migrate GPU workloads to TensorFusion GPU pooling, the GitOps way."""


def _show_version(ctx: click.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"tfpolicy, version {__version__} (commit {build_commit()})")
        ctx.exit()


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and len(sys.argv) > _LONG_COMMAND_LINE:
        _return_start_up_copies()
    args = list(sys.argv[1:] if argv is None else argv)
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
    except PolicyInvalid as exc:
        sys.stderr.write(FORMATS[_format(args)](exc.findings))
        return ExitCode.INVALID
    except TfpolicyError as exc:
        return _fail(exc, _format(args))
    except (BrokenPipeError, _OutputClosed):
        return _broken_pipe()
    except OSError as exc:
        if exc.errno not in _WRITE_FAILED:
            return _internal(exc, args)
        return _write_failed(exc)
    except Exception as exc:  # anything else is a bug: one line, traceback on request
        return _internal(exc, args)
    return int(result or 0)


def _internal(exc: Exception, args: list[str]) -> int:
    if "--traceback" in args:
        traceback.print_exc()
    print(f"tfpolicy: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
    return ExitCode.INTERNAL


# A write the system refused: the disk or quota is full, a file too large, the device failed.
_WRITE_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _write_failed(exc: OSError) -> int:
    """The output could not be written whole: say so plainly, never as a bug, never 0.

    stdout is pointed at /dev/null first, so the interpreter's flush at exit cannot
    raise again; a file ``fix`` replaces is swapped in only once written whole.
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    print(f"tfpolicy: a write failed, the output is not whole: {exc.strerror}", file=sys.stderr)
    return ExitCode.IO_ERROR


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


def _broken_pipe() -> int:
    """stdout's reader went away: the output did not get through, so never exit 0.

    Quietly, and with stdout pointed at /dev/null so the interpreter's own
    flush at exit cannot raise again (a host like ArgoCD would otherwise take a
    cut-off render for a whole one; reference/hosts.md §3.3).
    """
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return ExitCode.BROKEN_PIPE


def _format(args: list[str]) -> str:
    """The ``--format`` asked for, so a CI reading annotations sees exit-2 errors too."""
    for index, arg in enumerate(args):
        value = arg.partition("=")[2] if arg.startswith("--format=") else (
            args[index + 1] if arg == "--format" and index + 1 < len(args) else "")
        if value in FORMATS:
            return value
    return "text"


def _fail(exc: TfpolicyError, fmt: str = "text") -> int:
    if fmt != "text":
        sys.stderr.write(FORMATS[fmt]([error_finding(exc.message, exc.file, exc.line,
                                                      exc.column)]))
        return int(exc.exit_code)
    text = str(exc)
    located = exc.file is not None or exc.line is not None
    if located:
        where, _, message = text.partition(": ")
        print(f"{where}: error: {message}", file=sys.stderr)
    else:
        print(f"tfpolicy: error: {text}", file=sys.stderr)
    return int(exc.exit_code)


if __name__ == "__main__":
    sys.exit(main())
