"""``tfpolicy argocd generate``: the ArgoCD config-management-plugin ``generate`` command.

stdout carries the manifest stream only, written once everything passed;
findings go to stderr; any failure exits non-zero with a one-line reason,
so ArgoCD never receives an empty render with exit 0 (docs/hosts.md, "Argo
CD"), nor a cut-off one: a reader gone part-way is exit 141.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from tfpolicy.commands.printing import emit_findings, say
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.operator import loaded_policies
from tfpolicy.files.stdout import write_out
from tfpolicy.findings import has_errors
from tfpolicy.hosts.appsource import check_links, dependencies, migrate, render
from tfpolicy.hosts.argocd_settings import settings
from tfpolicy.hosts.policies import with_stage
from tfpolicy.render import visible
from tfpolicy.rewrite.pipeline import Options

if TYPE_CHECKING:
    import click

_CONTENT = re.compile(r"^(?!#|---|\.\.\.)\S", re.MULTILINE)


def generate(explain: bool) -> int:
    """Render the app folder and apply its policies; print the manifests."""
    cwd = Path.cwd()
    run = settings(os.environ, cwd)
    check_links(cwd, run.root)
    policies = loaded_policies(run.decided)
    if run.stage:
        policies = with_stage(policies, run.stage)
    done = migrate(render(cwd, os.environ, run.render), policies, Options(run.namespace, explain))
    if explain:
        for name, reason in done.skipped:
            say(visible(f"tfpolicy: skipped {name}: {reason}"), err=True)
    emit_findings(done.findings, "text", err=True)
    if has_errors(done.findings):
        return ExitCode.FINDINGS
    if not any(_CONTENT.search(chunk) for chunk in done.chunks):
        raise TfpolicyError("the app folder rendered no Kubernetes objects")
    write_out("".join(done.chunks))  # all of it, or exit 141 (tfpolicy.files.stdout)
    return ExitCode.OK


def _click_group() -> click.Group:
    import click

    from tfpolicy.command_table import HELP
    from tfpolicy.commands.options import explain_option

    @click.group(help=HELP["argocd"])
    def argocd() -> None:
        """The host\'s subcommands, each one call of the host\'s protocol."""

    @argocd.command()
    def init() -> int:
        """Fetch a chart's dependencies (helm dependency build), as ArgoCD does for Helm apps."""
        dependencies(Path.cwd())
        return ExitCode.OK

    @argocd.command("generate")
    @explain_option("Say which files of a plain-folder app were skipped, and why.")
    def generate_command(explain: bool) -> int:
        """Render the app folder and apply its policies; print the manifests.

        A file holding no Kubernetes object (a compose file, any YAML without
        apiVersion and kind) is skipped, as the pre-commit hooks skip it."""
        return generate(explain)

    return argocd


def run_plain(args: list[str]) -> int | None:
    """``tfpolicy argocd generate [--explain]``, the call Argo CD makes on every render, run
    without click; ``None`` for any other command line, which click reads."""
    if args[:2] != ["argocd", "generate"] or not set(args[2:]) <= {"--explain"} or \
            "_TFPOLICY_COMPLETE" in os.environ:
        return None
    from tfpolicy.commands.outcome import guarded

    return guarded(lambda: generate("--explain" in args), args)


def __getattr__(name: str) -> object:
    """``argocd``, the click group, built the first time the command line needs click."""
    if name != "argocd":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = built = _click_group()
    return built
