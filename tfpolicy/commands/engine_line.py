"""The command line of the verbs that run the engine over files (``check``, ``apply``,
``fix``), read without the command line library when it is plain.

A pre-commit hook runs ``check`` or ``fix`` on every commit, and importing click
costs such a start more than the rest of its command line (docs/speed.md). So a
command line made only of the options below, each written whole (``--policy X``,
``--policy=X``, ``-p X``), with values click would take as they are, is read
here; anything else (``-h``, a misspelled option, a value click would refuse, a
path it would reject, ``-pX``) gives ``None`` and goes to click, which reads it
as it always did, errors and help included. So this reader decides nothing
click would decide differently: it only declines. What each option means and
its help are declared once, as click options (``tfpolicy.commands.options``);
tests/commands/test_engine_line.py holds the two the same.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from tfpolicy.commands.printing import say
from tfpolicy.files.project import lookup
from tfpolicy.files.scopes import Flags, Run, configured_run
from tfpolicy.findings import Severity
from tfpolicy.hosts.hook import hook_argv
from tfpolicy.policy.project_config import Given
from tfpolicy.records import Record
from tfpolicy.render import visible

FLAG, VALUE, MANY = "flag", "value", "many"  # how an option takes its value


class EngineLine(Record):
    """What an engine verb's command line says, by the names its options declare."""

    policies: tuple[str, ...] = ()
    namespace: str | None = None
    fmt: str | None = None
    explain: bool = False
    quiet: bool = False
    operator: tuple[str, ...] = ()
    jobs: int = 1  # where a command takes no -j: one process
    hook: bool = False
    skip_unconfigured: bool = False
    fail_on: Severity = Severity.ERROR
    show_diff: bool = False
    output: str | None = None
    old_output: str | None = None
    paths: tuple[str, ...] = ()


FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING}
_FORMATS = ("github", "json", "junit", "sarif", "text")  # tfpolicy.render.FORMATS' names

# Each option: its field, how it takes a value, and the values click accepts (None: any).
Spec = tuple[str, str, Callable[[str], object] | None]
_ENGINE: dict[str, Spec] = {
    "-p": ("policies", MANY, None), "--policy": ("policies", MANY, None),
    "-n": ("namespace", VALUE, None), "--namespace": ("namespace", VALUE, None),
    "--format": ("fmt", VALUE, lambda v: v if v in _FORMATS else None),
    "--operator-config": ("operator", MANY, None), "--explain": ("explain", FLAG, None),
    "-q": ("quiet", FLAG, None), "--quiet": ("quiet", FLAG, None),
    "--fail-on": ("fail_on", VALUE, FAIL_ON.get),
    "-j": ("jobs", VALUE, lambda v: int(v) if v.isascii() and v.isdigit() else None),
}
_ENGINE["--jobs"] = _ENGINE["-j"]
_HOOK: dict[str, Spec] = {"--skip-unconfigured": ("skip_unconfigured", FLAG, None),
                          "--hook": ("hook", FLAG, None)}


def _folder(value: str) -> str | None:
    """What ``click.Path(file_okay=False)`` accepts as it is."""
    return value if _path_kind(value) in ("", "dir") else None


def _any_path(value: str) -> str | None:
    """What ``click.Path()`` accepts as it is: a missing path, or one this process reads."""
    return value if _path_kind(value) != "unreadable" else None


def _path_kind(value: str) -> str:
    """``""`` for a missing path, else ``dir``, ``other`` or ``unreadable``."""
    try:
        mode = os.stat(value).st_mode
    except (OSError, ValueError):
        return ""
    if not os.access(value, os.R_OK):
        return "unreadable"
    return "dir" if stat.S_ISDIR(mode) else "other"


# The verbs read here: their options, and how each path named is checked (None: as given).
VERBS: dict[str, tuple[dict[str, Spec], Callable[[str], object] | None]] = {
    "check": ({**_ENGINE, **_HOOK, "--diff": ("show_diff", FLAG, None)}, _any_path),
    "fix": ({**_ENGINE, **_HOOK}, None),
    "apply": ({**_ENGINE, "-o": ("output", VALUE, _folder),
               "--output-dir": ("output", VALUE, _folder),
               "--output": ("old_output", VALUE, _folder)}, _any_path),
}
HOOK_VERBS = ("check", "fix")  # pre-commit's: a hook's ``--`` is read as they read it
JOBS_VARIABLE = "TFPOLICY_JOBS"  # -j's default, as click reads it


def read_line(verb: str, args: list[str], environ: Mapping[str, str]) -> EngineLine | None:
    """``args`` (after the verb) as click would read them, or ``None`` to let click read
    them. A few lines, since a start pays for each module it imports (docs/speed.md)."""
    options, path_kind = VERBS[verb]
    values: dict[str, object] = {"jobs": _jobs_default(environ)}
    paths: list[str] = []
    rest = hook_argv(args) if verb in HOOK_VERBS else args
    index = 0
    while index < len(rest):
        token = rest[index]
        index += 1
        if token == "--":
            paths += rest[index:]
            break
        if token == "-" or not token.startswith("-"):
            paths.append(token)
            continue
        name, equals, attached = token.partition("=")
        spec = options.get(name if name.startswith("--") else token)
        if spec is None or (equals and spec[1] == FLAG):
            return None
        field, how, accept = spec
        if how == FLAG:
            values[field] = True
            continue
        if not equals:
            if index == len(rest) or rest[index].startswith("-"):
                return None  # click's own message for a missing value, or its reading
            attached, index = rest[index], index + 1
        value = attached if accept is None else accept(attached)
        if value is None:
            return None
        values[field] = (*values.get(field, ()), value) if how == MANY else value  # type: ignore[misc]
    if values["jobs"] is None or (path_kind and any(path_kind(p) is None for p in paths)):
        return None
    return EngineLine(paths=tuple(paths), **values)  # type: ignore[arg-type]


def _jobs_default(environ: Mapping[str, str]) -> int | None:
    """``-j``'s value when not given: ``TFPOLICY_JOBS`` when set, else 0 (one worker per
    CPU). ``None`` when click would have to judge the variable's value."""
    value = environ.get(JOBS_VARIABLE, "")
    if not value:
        return 0
    return int(value) if value.isascii() and value.isdigit() else None


def run_plain(args: list[str]) -> int | None:
    """Run ``tfpolicy VERB ARGS`` (``args[0]`` one of ``VERBS``) without click, or
    ``None`` when its command line is click's to read."""
    if _COMPLETION in os.environ:  # click answers shell completion instead of running
        return None
    line = read_line(args[0], args[1:], os.environ)
    if line is None:
        return None
    import importlib  # here: only the verb's own module, as the click group imports it

    from tfpolicy.command_table import COMMANDS
    from tfpolicy.commands.outcome import guarded

    module = f"tfpolicy.commands.{COMMANDS[args[0]][0]}"
    return guarded(lambda: int(importlib.import_module(module).run(line)), args)


_COMPLETION = "_TFPOLICY_COMPLETE"  # click's variable for the program name ``tfpolicy``


def engine_run(line: EngineLine) -> Run:
    """The run the command line decides, with the working directory's config (flags
    first, then ``.tfpolicy.yaml``)."""
    found = lookup(Path.cwd())
    if line.explain and not line.policies:
        say(visible(f"tfpolicy: {found.explain()}"), err=True)
    flags = Flags(line.jobs, line.hook, line.skip_unconfigured, line.quiet)
    given = Given(line.policies, Path("."), line.namespace, line.operator, line.fmt)
    return configured_run(found.config, given, line.explain, flags)
