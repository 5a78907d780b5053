"""Every option more than one command takes, declared once; and what the engine's options
resolve to (flags, then .tfpolicy.yaml)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from tfpolicy.command_table import HELP, epilog
from tfpolicy.files.project import lookup, resolve_here
from tfpolicy.files.scopes import Flags, Run, configured_run
from tfpolicy.findings import Severity
from tfpolicy.hosts.hook import hook_argv
from tfpolicy.policy.config import Configuration, Given
from tfpolicy.render import FORMATS

F = TypeVar("F", bound=Callable[..., Any])
OPERATOR_HELP = ("Operator objects: `kubectl get providerconfig,workloadprofile,"
                 "gpuresourcequota,gpupool,gpu -A -o yaml` (repeatable).")
_SKIP_UNCONFIGURED = "tfpolicy.skip_unconfigured"
_HOOK = "tfpolicy.hook"
_JOBS = "tfpolicy.jobs"
_OPERATOR = "tfpolicy.operator"
_QUIET = "tfpolicy.quiet"


def command(name: str, cls: type[click.Command] = click.Command
            ) -> Callable[[Callable[..., Any]], click.Command]:
    """Command ``name``, its help and examples taken from the listing, their one source."""
    return click.command(name, cls=cls, help=HELP[name], epilog=epilog(name))


class HookCommand(click.Command):
    """A command a pre-commit hook runs: ``--hook -- [OPTIONS --] FILES``, so no file
    name lands where an option is parsed (``tfpolicy.hosts.hook``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hook_argv(args))


def _remember_hook(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[_HOOK] = value
    return value


def hook_option(func: F) -> F:
    """``--hook``: what the pre-commit hooks run (docs/hosts.md, "pre-commit")."""
    return click.option(
        "--hook", is_flag=True, expose_value=False, callback=_remember_hook,
        help="What the pre-commit hooks run: every name after `--` is a file; a changed "
             ".tfpolicy.yaml or policy file brings in every manifest it governs; as "
             "--skip-unconfigured.")(func)


def _remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[_SKIP_UNCONFIGURED] = value
    return value


def _remember_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[_QUIET] = value
    return value


def _remember_operator(ctx: click.Context, param: click.Parameter,
                       value: tuple[str, ...]) -> tuple[str, ...]:
    ctx.meta[_OPERATOR] = value
    return value


def _remember_jobs(ctx: click.Context, param: click.Parameter, value: int) -> int:
    ctx.meta[_JOBS] = value
    return value


def operator_options(func: F) -> F:
    """The operator's configuration, as admission, plan, verify and promote take it."""
    options = [
        click.option("--values", type=click.Path(dir_okay=False),
                     help="Helm values of the chart."),
        click.option("--namespaces", type=click.Path(dir_okay=False),
                     help="Namespace objects whose labels namespaceSelector reads."),
        click.option("--operator-config", "operator", multiple=True,
                     type=click.Path(dir_okay=False), metavar="FILE",
                     help=OPERATOR_HELP + " Default: operatorConfig of .tfpolicy.yaml."),
        click.option("-n", "--namespace", default=None,
                     help="Namespace for manifests that name none [default: namespace of "
                          ".tfpolicy.yaml, else default]."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def jobs_option(func: F) -> F:
    """``-j``: worker processes for the commands that run the engine over many documents."""
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=0), default=0, envvar="TFPOLICY_JOBS",
        show_envvar=True, expose_value=False, callback=_remember_jobs,
        help="Worker processes; 0 (the default) is one per CPU this process may use, 1 "
             "runs everything in this process. Output is the same either way.",
    )(func)


_FAIL_ON = {"error": Severity.ERROR, "warning": Severity.WARNING}


def fail_on_option(func: F) -> F:
    """``--fail-on``: the least severe finding that makes the exit code 1 (docs/exit-codes.md);
    ``warning`` fails CI on every GPU request left with the device plugin, among others."""
    return click.option(
        "--fail-on", "fail_on", type=click.Choice(sorted(_FAIL_ON)), default="error",
        show_default=True, callback=lambda ctx, param, value: _FAIL_ON[value],
        help="Exit 1 on a finding of this severity or worse (warning: also on every GPU "
             "request not migrated).",
    )(func)


def engine_options(func: F) -> F:
    options = [
        click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
                     help="Policy file or built-in name (repeatable); default: the nearest "
                     ".tfpolicy.yaml above each file."),
        click.option("-n", "--namespace", default=None,
                     help="Namespace for manifests that name none [default: namespace of "
                          ".tfpolicy.yaml, else default]."),
        click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
                     help="How findings are printed [default: text]."),
        click.option("--operator-config", multiple=True, metavar="FILE", expose_value=False,
                     callback=_remember_operator, help=OPERATOR_HELP + " They decide which "
                     "GPU vendors are configured; default: operatorConfig of .tfpolicy.yaml."),
        click.option("--explain", is_flag=True,
                     help="Say why each GPU workload was not selected, and each file skipped."),
        # Kept out of the command's parameters (set in the context), so every command
        # taking engine options need not name it.
        click.option("-q", "--quiet", is_flag=True, expose_value=False, callback=_remember_quiet,
                     help="No progress on stderr (shown only on a terminal, for long runs)."),
        click.option("--skip-unconfigured", is_flag=True, expose_value=False,
                     callback=_remember, help="fix/check: when no .tfpolicy.yaml governs any "
                     "file named, check nothing and exit 0 (--hook implies it)."),
        hook_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def engine_run(policies: tuple[str, ...], namespace: str | None, fmt: str | None,
               explain: bool) -> Run:
    """The run the engine options decide, with the working directory's config: the options
    kept out of the command's parameters (``-j``, ``--hook``, ``-q``, …) are read here."""
    found = lookup(Path.cwd())
    if explain and not policies:
        click.echo(f"tfpolicy: {found.explain()}", err=True)
    meta = click.get_current_context().meta
    operator = tuple(meta.get(_OPERATOR, ()))
    flags = Flags(int(meta.get(_JOBS, 1)), bool(meta.get(_HOOK)),  # -j: 1 where not taken
                  bool(meta.get(_SKIP_UNCONFIGURED)), bool(meta.get(_QUIET)))
    return configured_run(found.config, Given(policies, Path("."), namespace, operator, fmt),
                          explain, flags)


def decide(policies: tuple[str, ...], namespace: str | None,
           operator: tuple[str, ...] = ()) -> Configuration:
    """What the working directory's run uses: the flags, then its ``.tfpolicy.yaml``."""
    return resolve_here(Given(policies, Path("."), namespace, operator))
