"""``tfpolicy init``: read a repository's GPU workloads and write the first rung's
``.tfpolicy.yaml`` and a ``.pre-commit-config.yaml`` beside it."""

from __future__ import annotations

from pathlib import Path

import click

from tfpolicy.commands.options import (
    command,
)
from tfpolicy.commands.printing import tell_passed_over
from tfpolicy.errors import ExitCode, TfpolicyError
from tfpolicy.files.install import install_file
from tfpolicy.files.project import lookup
from tfpolicy.files.runner import rewrite_files
from tfpolicy.files.scopes import configured_run
from tfpolicy.findings import NOT_MIGRATED_RULES, Finding, ResourceRef, Severity
from tfpolicy.policy.project_config import Given
from tfpolicy.render import visible

# The hooks of .pre-commit-hooks.yaml a starting repository wants (id, name, entry as
# declared there): fix migrates, validate keeps the policies sound (check, the read-only
# alternative to fix, is named in a comment).
HOOKS = (
    ("tfpolicy-fix", "tfpolicy fix (migrate GPU workloads to TensorFusion)",
     "tfpolicy fix --hook --"),
    ("tfpolicy-validate", "tfpolicy validate (migration policies)",
     "tfpolicy validate --hook --"),
)
FIRST_RUNG = "takeover-1"
FIRST_POLICY = "takeover"  # what finds the GPU workloads: the policy whose first step that is


@command("init")
@click.option("--force", is_flag=True, help="Replace the files if they exist.")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
def init(force: bool, path: str) -> int:
    """A repository's first rung: its GPU workloads found as ``check`` finds them, named in
    the comments of the config written."""
    root = Path(path)
    targets = {root / ".tfpolicy.yaml": "", root / ".pre-commit-config.yaml": ""}
    if not force:
        for target in targets:
            if target.exists() or target.is_symlink():
                raise TfpolicyError("exists: not replaced (nothing was written; --force "
                                    "replaces it)", file=str(target))
    run = configured_run(lookup(Path.cwd()).config, Given((FIRST_POLICY,)), explain=False)
    ran = rewrite_files(run, (path,))
    tell_passed_over(ran, run, (path,))
    found = sorted({c.resource for c in ran.changes})
    unmigrated = reported(ran.findings, found)
    targets[root / ".tfpolicy.yaml"] = config_text(found, unmigrated)
    targets[root / ".pre-commit-config.yaml"] = pre_commit_text()
    for target, text in targets.items():
        install_file(target, text.encode(), 0o644, "--force after removing the link")
    click.echo(found_text(found, unmigrated), nl=False)
    for target in targets:
        click.echo(f"Wrote {visible(str(target))}")
    return ExitCode.OK


def reported(findings: list[Finding], found: list[ResourceRef]) -> list[ResourceRef]:
    """GPU workloads ``check`` reports as not migrated (a DRA claim, a KubeAI Model, an
    unconfigured vendor…), so that a folder of them is never "0 GPU workloads"."""
    return sorted({f.resource for f in findings
                   if f.rule in NOT_MIGRATED_RULES and f.severity is Severity.WARNING
                   and f.resource is not None and f.resource not in found})


def found_text(found: list[ResourceRef], unmigrated: list[ResourceRef]) -> str:
    """What was found, one workload a line, sorted, as every report shows a name."""
    lines = [f"found {len(found)} GPU workloads to migrate"]
    lines += [f"  {visible(str(ref))}" for ref in found]
    if unmigrated:
        lines.append(f"found {len(unmigrated)} GPU workloads tfpolicy reports but cannot "
                     "migrate (tfpolicy check says why)")
        lines += [f"  {visible(str(ref))}" for ref in unmigrated]
    return "\n".join(lines) + "\n"


def config_text(found: list[ResourceRef], unmigrated: list[ResourceRef]) -> str:
    """The config written; the manifests' names stay inside its comments (a line feed in a
    namespace would otherwise start a key of its own)."""
    namespaces = sorted({visible(ref.namespace) or "(none named)" for ref in found})
    kinds = sorted({visible(ref.kind) for ref in found})
    return (
        "# The first rung of the migration: TensorFusion takes one replica of each GPU\n"
        "# workload, whole cards. Next rungs: takeover-25, takeover-50, takeover, then a\n"
        "# rightsize policy from `tfpolicy recommend` (docs/stages.md).\n"
        f"# GPU workloads found: {len(found)}\n"
        f"# GPU workloads reported, not migrated (tfpolicy check says why): {len(unmigrated)}\n"
        f"# namespaces: {', '.join(namespaces) or '-'}\n"
        f"# kinds: {', '.join(kinds) or '-'}\n"
        f"policies: [{FIRST_RUNG}]\n"
    )


def pre_commit_text() -> str:
    """A ``repo: local`` config: the hooks run the tfpolicy installed beside pre-commit
    (a checked wheel, docs/install.md), so it names no address and no tag to trust."""
    hooks = "".join(
        f"      - id: {hook}\n        name: {name}\n        entry: {entry}\n"
        "        language: system\n        types_or: [yaml, json]\n"
        "        require_serial: true\n"
        for hook, name, entry in HOOKS)
    return (
        "# Policies come from .tfpolicy.yaml. The hooks run the tfpolicy installed beside\n"
        "# pre-commit (docs/install.md); tfpolicy check --hook -- instead of fix never\n"
        "# writes and fails on anything fix would change.\n"
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n" + hooks
    )
