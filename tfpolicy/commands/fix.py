"""``tfpolicy fix``: rewrite files in place, only changed ones (pre-commit style).

What it guarantees about concurrent edits, links and temp files is in
``tfpolicy.files.output`` and the README's ``fix`` section.
"""

from __future__ import annotations

from tfpolicy.commands.options import (
    HookCommand,
    command,
    engine_options,
    engine_run,
    fail_on_option,
    hook_options,
    jobs_option,
    paths_argument,
)
from tfpolicy.commands.printing import emit_findings, tell_fixed
from tfpolicy.errors import ExitCode
from tfpolicy.files.in_place import fix_files
from tfpolicy.findings import Severity, fails


@command("fix", HookCommand)
@engine_options
@hook_options
@fail_on_option
@jobs_option
# Plain strings: ``click.Path`` stats every name it is given, thousands from a hook, and
# the paths are stat'ed when they are read anyway.
@paths_argument(str)
def fix(policies: tuple[str, ...], namespace: str | None, fmt: str | None, explain: bool,
        fail_on: Severity, paths: tuple[str, ...]) -> int:
    """Rewrite the files in place, each replaced only while it is still as it was read
    (``tfpolicy.files.output``); the names rewritten on stdout once every write is done."""
    run = engine_run(policies, namespace, fmt, explain)
    fixed = fix_files(run, paths, lambda kept: emit_findings(kept, run.fmt, err=True))
    tell_fixed(fixed, run, paths)
    return ExitCode.FINDINGS if fixed.changed or fails(fixed.findings, fail_on) else ExitCode.OK
