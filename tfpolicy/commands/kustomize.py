"""``tfpolicy kustomize``: the legacy exec-plugin transformer and its installer.

kustomize calls the plugin with the transformer config (a MigrationPolicy,
re-serialised by kustomize) as argv[1], all resources on stdin, and expects
the whole transformed stream on stdout (kubernetes-sigs/kustomize
api/internal/plugins/execplugin/execplugin.go). On any error the exit is
non-zero: kustomize then fails the build with our stderr and discards
stdout, so no resource is ever silently dropped (docs/hosts.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from tfpolicy.command_table import HELP
from tfpolicy.commands.options import (
    resolve_flags,
)
from tfpolicy.commands.printing import emit_findings
from tfpolicy.errors import ExitCode
from tfpolicy.files.install import install_file
from tfpolicy.files.operator import loaded_policies
from tfpolicy.files.sources import STDIN, read_text
from tfpolicy.files.stdout import write_out
from tfpolicy.findings import has_errors
from tfpolicy.hosts.kustomize_plugin import PLUGIN_PATH, default_home, plugin_script
from tfpolicy.rewrite.pipeline import Options, transform


@click.group(help=HELP["kustomize"])
def kustomize() -> None:
    """The host\'s subcommands, each one call of the host\'s protocol."""


@kustomize.command("transform")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
def transform_stream(config: str) -> int:
    """Transform the resource stream on stdin with the MigrationPolicy in CONFIG."""
    decided = resolve_flags((config,), None)  # cwd: the kustomization root (docs/hosts.md)
    policies = loaded_policies(decided)
    options = Options(decided.namespace)
    result = transform(read_text(STDIN), policies, "<kustomize>", options)
    emit_findings(result.findings, "text", err=True)
    if has_errors(result.findings):
        return ExitCode.FINDINGS
    write_out(result.text)  # all of it, or exit 141 (tfpolicy.files.stdout)
    return ExitCode.OK



@kustomize.command("install-plugin")
@click.option("--plugin-home", type=click.Path(file_okay=False), default=None,
              help="Plugin home [default: where kustomize looks first].")
def install_plugin(plugin_home: str | None) -> int:
    """Install the legacy exec plugin where kustomize looks for it."""
    home = Path(plugin_home) if plugin_home else default_home(os.environ, Path.home())
    target = home / PLUGIN_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    install_file(target, plugin_script(sys.executable).encode("utf-8"), 0o755)
    click.echo(str(target))
    return ExitCode.OK
