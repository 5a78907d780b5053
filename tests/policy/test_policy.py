"""Policy validation beyond the schema's shape, and the override semantics of DESIGN §2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tfpolicy.cli import cli
from tfpolicy.files.sources import builtin_policies, check_policy_files
from tfpolicy.policy.model import Pair, Resources, Settings, Stage

HEAD = "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: p}\nspec:\n"


def problems(tmp_path: Path, spec: str) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + spec)
    return [f"{f.line}:{f.column} {f.message}" for f in check_policy_files([str(path)])[1]]


@pytest.mark.parametrize(("spec", "expected"), [
    ("  stage: takeover\n  match: {kinds: [Deploymnet]}\n", "6:19 unknown kind 'Deploymnet'"),
    ("  stage: takeover\n  isolation: soft\n", "6:14 not allowed: only for stage rightsize"),
    ("  stage: rightsize\n  resources: {computePercent: {limit: '150'}}\n",
     "6:39 computePercent '150' must be above 0 and at most 100"),
    ("  stage: rightsize\n  resources: {tflops: {limit: '0'}}\n", "6:31 tflops '0' must be above 0"),
    ("  stage: rightsize\n  resources: {tflops: {limit: '1'}, computePercent: {limit: '5'}}\n",
     "6:3 not allowed: tflops and computePercent together"),
    ("  stage: rightsize\n", "4:1 'resources' is a required property"),
    ("  stage: shrink\n", "5:10 'shrink' is not one of: takeover, rightsize, rollback"),
])
def test_invalid_policies_are_located(tmp_path: Path, spec: str, expected: str) -> None:
    found = problems(tmp_path, spec)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_custom_kinds_are_known_once_declared(tmp_path: Path) -> None:
    spec = ("  stage: takeover\n  match: {kinds: [Trainer]}\n  podTemplates:\n"
            "  - {apiVersion: example.com/v1, kind: Trainer, paths: ['spec.workers[*].template']}\n")
    assert problems(tmp_path, spec) == []


def test_override_replaces_resource_entries_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + "  stage: rightsize\n  resources:\n"
                    "    tflops: {request: '30', limit: '60'}\n    vram: {limit: 16Gi}\n"
                    "  workloads:\n  - match: {names: [big]}\n    resources: {vram: {limit: 70Gi}}\n"
                    "  - match: {names: [pct]}\n    resources: {computePercent: {limit: '50'}}\n")
    (policy,), errors = check_policy_files([str(path)])
    assert errors == [] and policy.stage is Stage.RIGHTSIZE

    def names(name: str) -> Settings:
        return policy.settings_for(lambda m: m.names is not None and name in m.names)

    assert names("big").resources == Resources(Pair("30", "60"), None, Pair("70Gi", "70Gi"))
    assert names("pct").resources == Resources(None, Pair("50", "50"), Pair("16Gi", "16Gi"))
    assert names("other").resources == policy.settings.resources


def test_every_builtin_policy_validates_through_click() -> None:
    names = builtin_policies()
    assert {"takeover", "takeover-1", "takeover-25", "takeover-50", "rightsize-example",
            "autoscale", "rollback"} <= set(names)
    result = CliRunner().invoke(cli, ["validate", *names])
    assert result.exit_code == 0, result.output
