"""Where kustomize looks for legacy exec plugins, and the plugin file tfpolicy installs there.

kubernetes-sigs/kustomize api/konfig/plugins.go and
api/internal/plugins/execplugin/execplugin.go: the plugin for ``apiVersion: tfpolicy.dev/v1alpha1,
kind: MigrationPolicy`` lives at
``<home>/tfpolicy.dev/v1alpha1/migrationpolicy/MigrationPolicy``, must be
executable, and is the only way to run a local program under
``kubectl kustomize`` (which cannot run exec KRM functions: docs/hosts.md).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

PLUGIN_PATH = Path("tfpolicy.dev", "v1alpha1", "migrationpolicy", "MigrationPolicy")


def plugin_homes(env: Mapping[str, str], home: Path) -> list[Path]:
    """kustomize's candidate plugin homes, in its order of preference."""
    homes = []
    if env.get("KUSTOMIZE_PLUGIN_HOME"):
        homes.append(Path(env["KUSTOMIZE_PLUGIN_HOME"]))
    if env.get("XDG_CONFIG_HOME"):
        homes.append(Path(env["XDG_CONFIG_HOME"], "kustomize", "plugin"))
    homes += [home / ".config" / "kustomize" / "plugin", home / "kustomize" / "plugin"]
    return homes


def default_home(env: Mapping[str, str], home: Path) -> Path:
    """The home kustomize will read: the first existing candidate, else the first one."""
    homes = plugin_homes(env, home)
    return next((h for h in homes if h.is_dir()), homes[0])


def plugin_script(python: str) -> str:
    """A shell wrapper pinned to this interpreter, so the plugin works without tfpolicy on PATH.

    A shebang on line 1 is required: kustomize execs the file directly
    (kustomize #5501); ``sh`` quoting copes with spaces in the path, which a
    ``#!<python>`` line could not. The arguments come after ``--``: past the config
    file, kustomize adds the transformer config's ``argsOneLiner`` and
    ``argsFromFile``, which the repository writes, so none may be an option.
    """
    call = ("import sys; from tfpolicy.cli import main; "
            'sys.exit(main(["kustomize", "transform", "--", *sys.argv[1:]]))')
    return ("#!/bin/sh\n"
            "# tfpolicy legacy kustomize exec plugin, installed by "
            "`tfpolicy kustomize install-plugin`.\n"
            f"exec {shlex.quote(python)} -c {shlex.quote(call)} \"$@\"\n")
