"""Every option more than one command takes, declared once here (as pre-commit's
``_add_config_option``); and what the engine's options resolve to (flags, then
``.tfpolicy.yaml``).

Where one option says something different for one command (what ``-p`` is
read for, which formats a report has), the command passes its own help or
choices; the option's name, type and default are declared here alone. Two
defaults differ between commands on purpose: ``recommend -n`` is
``default`` (it reads no ``.tfpolicy.yaml``), and ``plan``, ``verify`` and
``promote`` take ``--inventory`` as required or not as their input needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tfpolicy.command_table import HELP, epilog
from tfpolicy.commands.engine_line import FAIL_ON as _FAIL_ON
from tfpolicy.commands.engine_line import EngineLine
from tfpolicy.errors import TfpolicyError
from tfpolicy.files.project import resolve_here
from tfpolicy.hosts.hook import hook_argv
from tfpolicy.policy.project_config import Configuration, Given, ProjectConfig
from tfpolicy.render import FORMATS

if TYPE_CHECKING:
    from tfpolicy.files.gate_metrics import GateSource

F = TypeVar("F", bound=Callable[..., Any])
Option = Callable[[Callable[..., Any]], Callable[..., Any]]  # click's option decorators

# What -p is read for, said in each command's help.
POLICY_ENGINE = ("Policy file or built-in name (repeatable); default: the nearest "
                 ".tfpolicy.yaml above each file.")
POLICY_PLAN = "Policy file or built-in name (repeatable); default: .tfpolicy.yaml."
POLICY_HAMI = ("Policy file or built-in name (repeatable) whose `spec.hami` names the "
               "cluster's HAMi resources; default: .tfpolicy.yaml, if there is one.")
POLICY_SIZES = ("Policies whose spec.frameworks and per-workload modelWeights / "
                "workingMemory size servers that pre-allocate a pool.")
_OPERATOR_HELP = ("Operator objects: `kubectl get providerconfig,workloadprofile,"
                  "gpuresourcequota,gpupool,gpu -A -o yaml` (repeatable).")
_NAMESPACE_HELP = ("Namespace for manifests that name none [default: namespace of "
                   ".tfpolicy.yaml, else default].")

# Options kept out of the engine commands' parameters, set in the context instead, so
# that every command taking them need not name them (``engine_line`` reads them).
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


def _in_context(key: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        ctx.meta[key] = value
        return value
    return remember


def _all(*options: Option) -> Option:
    """Several options, listed in ``--help`` in the order given."""
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func
    return decorate


def paths_argument(kind: Any = None) -> Option:
    """``PATHS``: the files and folders named (``kind``: how each is checked; a path)."""
    return click.argument("paths", nargs=-1, type=click.Path() if kind is None else kind)


def policy_option(help: str) -> Option:
    """``-p``: the policies, by file or built-in name; ``help`` says what they are read for."""
    return click.option("-p", "--policy", "policies", multiple=True, metavar="POLICY",
                        help=help)


def namespace_option(default: str | None = None, help: str = _NAMESPACE_HELP) -> Option:
    """``-n``: the namespace of manifests that name none."""
    return click.option("-n", "--namespace", default=default, show_default=default is not None,
                        help=help)


def format_option(choices: Sequence[str], default: str | None = "text",
                  help: str | None = None, show_default: bool = True) -> Option:
    """``--format``: how the report or the findings are printed."""
    return click.option("--format", "fmt", type=click.Choice(list(choices)), default=default,
                        show_default=show_default, help=help)


def operator_config_option(exposed: bool = True) -> Option:
    """``--operator-config``: files of the operator's objects. The engine commands keep it
    in the context (``exposed=False``), where it decides which GPU vendors are configured."""
    if exposed:
        return click.option("--operator-config", "operator", multiple=True,
                            type=click.Path(dir_okay=False), metavar="FILE",
                            help=_OPERATOR_HELP + " Default: operatorConfig of .tfpolicy.yaml.")
    return click.option("--operator-config", multiple=True, metavar="FILE", expose_value=False,
                        callback=_in_context(_OPERATOR), help=_OPERATOR_HELP + " They decide "
                        "which GPU vendors are configured; default: operatorConfig of "
                        ".tfpolicy.yaml.")


def inventory_option(required: bool, help: str) -> Option:
    """``--inventory``: the GPU inventory file."""
    return click.option("--inventory", required=required, type=click.Path(dir_okay=False),
                        help=help)


def report_option(help: str) -> Option:
    """``-o FILE``: a report written to a file (whole or not at all) instead of stdout."""
    return click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                        metavar="FILE", help=help)


def steps_option(help: str) -> Option:
    """``--steps``: the enabledReplicas ladder, the plan's own by default."""
    from tfpolicy.plan import DEFAULT_LADDER  # here: only plan and verify take it

    default = ",".join(str(rung) for rung in DEFAULT_LADDER)
    return click.option("--steps", default=default, show_default=True, help=help)


def explain_option(help: str) -> Option:
    """``--explain``: say why something was left alone."""
    return click.option("--explain", is_flag=True, help=help)


def operator_options(func: F) -> F:
    """The operator's configuration, as admission, plan, verify and promote take it."""
    return _all(  # type: ignore[return-value]
        click.option("--values", type=click.Path(dir_okay=False),
                     help="Helm values of the chart."),
        click.option("--namespaces", type=click.Path(dir_okay=False),
                     help="Namespace objects whose labels namespaceSelector reads."),
        operator_config_option(), namespace_option())(func)


def cluster_options(snapshot_help: str, live_help: str) -> Option:
    """Where the cluster is read from, as verify and promote take it: snapshot files, or
    ``kubectl`` itself with a context."""
    return _all(
        click.option("--cluster", "snapshots", multiple=True, metavar="SNAPSHOT",
                     help=snapshot_help),
        click.option("--live", is_flag=True, help=live_help),
        click.option("--context", default=None, help="The kubeconfig context for --live."))


def jobs_option(func: F) -> F:
    """``-j``: worker processes for the commands that run the engine over many documents."""
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=0), default=0, envvar="TFPOLICY_JOBS",
        show_envvar=True, expose_value=False, callback=_in_context(_JOBS),
        help="Worker processes; 0 (the default) is one per CPU this process may use, 1 "
             "runs everything in this process. Output is the same either way.",
    )(func)


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
    """What every command running the engine over files takes (apply, check, fix)."""
    return _all(  # type: ignore[return-value]
        policy_option(POLICY_ENGINE), namespace_option(),
        format_option(sorted(FORMATS), None, "How findings are printed [default: text].",
                      show_default=False),
        operator_config_option(exposed=False),
        explain_option("Say why each GPU workload was not selected, and each file skipped."),
        click.option("-q", "--quiet", is_flag=True, expose_value=False,
                     callback=_in_context(_QUIET),
                     help="No progress on stderr (shown only on a terminal, for long runs)."))(func)


def hook_options(func: F) -> F:
    """What only the commands pre-commit runs take (fix, check)."""
    return _all(  # type: ignore[return-value]
        click.option("--skip-unconfigured", is_flag=True, expose_value=False,
                     callback=_in_context(_SKIP_UNCONFIGURED), help="When no "
                     ".tfpolicy.yaml governs any file named, check nothing and exit 0 (--hook "
                     "implies it)."),
        click.option("--hook", is_flag=True, expose_value=False, callback=_in_context(_HOOK),
                     help="What the pre-commit hooks run: every name after `--` is a file; a "
                     "changed .tfpolicy.yaml or policy file brings in every manifest it "
                     "governs; as --skip-unconfigured."))(func)


def engine_line(given: dict[str, Any]) -> EngineLine:
    """What click read for an engine verb, as ``EngineLine`` holds a command line read
    without it: the command's parameters, and the options kept in the context."""
    meta = click.get_current_context().meta
    return EngineLine(**given, jobs=int(meta.get(_JOBS, 1)), hook=bool(meta.get(_HOOK)),
                      skip_unconfigured=bool(meta.get(_SKIP_UNCONFIGURED)),
                      quiet=bool(meta.get(_QUIET)), operator=tuple(meta.get(_OPERATOR, ())))


def resolve_flags(policies: tuple[str, ...], namespace: str | None,
                  operator: tuple[str, ...] = ()) -> Configuration:
    """What the flags decide, over the working directory's ``.tfpolicy.yaml``."""
    return resolve_here(Given(policies, Path("."), namespace, operator))


def soak_option(help: str) -> Option:
    """``--min-soak``: how long the rung's TensorFusion pods must have been ready (promote),
    the shortest window its gates are measured over (verify and promote)."""
    return click.option("--min-soak", "min_soak", default="10m", show_default=True,
                        metavar="DURATION", help=help)


def gate_options(func: F) -> F:
    """Where the gates' answers come from (docs/gates.md), as verify and promote take it."""
    return _all(  # type: ignore[return-value]
        click.option("--prometheus", default=None, metavar="URL",
                     help="Prometheus the gates ask [default: prometheus: of .tfpolicy.yaml]."),
        click.option("--metrics", default=None, type=click.Path(dir_okay=False),
                     metavar="FILE", help="The gates' answers from a file --save-metrics "
                     "wrote, instead of Prometheus."),
        click.option("--save-metrics", "save_metrics", default=None,
                     type=click.Path(dir_okay=False), metavar="FILE",
                     help="Write Prometheus' answers to the gates to FILE (for --metrics)."))(func)


def gate_source(config: ProjectConfig | None, prometheus: str | None, metrics: str | None,
                save: str | None) -> GateSource:
    """The gates of the configuration and where their answers come from."""
    from tfpolicy.files.gate_metrics import GateSource  # here: only verify and promote ask
    from tfpolicy.gates import GateConfig

    if metrics is not None and (prometheus is not None or save is not None):
        raise TfpolicyError("--metrics reads the answers from a file: not with --prometheus "
                            "or --save-metrics")
    gates = config.gates if config is not None else GateConfig()
    file = str(config.path) if config is not None else ".tfpolicy.yaml"
    return GateSource(gates, file, prometheus, metrics, save)
