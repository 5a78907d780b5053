"""The click group: each command imported only when it runs; what an exception means is
``tfpolicy.commands.outcome``'s (docs/exit-codes.md).

``tfpolicy --help`` lists every command with its summary from the listing
(``tfpolicy.command_table``), so listing them imports none of them.
"""

from __future__ import annotations

import importlib

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
from tfpolicy.commands.outcome import broken_pipe, guarded
from tfpolicy.errors import ExitCode


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
    """Run the command line ``args`` through click; its exit code."""
    return guarded(lambda: _click_main(args), args)


def _click_main(args: list[str]) -> int:
    """click's own outcomes as exit codes; any other exception is ``guarded``'s."""
    try:
        result = cli.main(args=args, prog_name="tfpolicy", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return ExitCode.INVALID
    except click.Abort:
        return ExitCode.INTERRUPTED
    except _OutputClosedError:
        return broken_pipe()
    return int(result or 0)
