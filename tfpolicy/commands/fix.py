"""``tfpolicy fix``: rewrite files in place, only changed ones (pre-commit style).

What it guarantees about concurrent edits, links and temp files is in
``tfpolicy.files.output`` and the README's ``fix`` section. As ``check``, a plain
command line is read without click (``tfpolicy.commands.engine_line``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfpolicy.commands.engine_line import EngineLine, engine_run
from tfpolicy.commands.printing import emit_findings, tell_fixed
from tfpolicy.errors import ExitCode
from tfpolicy.files.in_place import fix_files
from tfpolicy.findings import fails

if TYPE_CHECKING:
    import click


def run(line: EngineLine) -> int:
    """Rewrite the files in place, each replaced only while it is still as it was read
    (``tfpolicy.files.output``); the names rewritten on stdout once every write is done."""
    run = engine_run(line)
    fixed = fix_files(run, line.paths, lambda kept: emit_findings(kept, run.fmt, err=True))
    tell_fixed(fixed, run, line.paths)
    failed = fixed.changed or fails(fixed.findings, line.fail_on)
    return ExitCode.FINDINGS if failed else ExitCode.OK


def _click_command() -> click.Command:
    from tfpolicy.commands.options import (
        HookCommand,
        command,
        engine_line,
        engine_options,
        fail_on_option,
        hook_options,
        jobs_option,
        paths_argument,
    )

    @command("fix", HookCommand)
    @engine_options
    @hook_options
    @fail_on_option
    @jobs_option
    # Plain strings: ``click.Path`` stats every name it is given, thousands from a hook,
    # and the paths are stat'ed when they are read anyway.
    @paths_argument(str)
    def fix(**given: Any) -> int:
        return run(engine_line(given))

    return fix


def __getattr__(name: str) -> object:
    """``fix``, the click command, built the first time the group asks for it."""
    if name != "fix":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = built = _click_command()
    return built
