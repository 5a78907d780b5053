"""A misspelled policy field or stage name gets the name it is closest to."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
HEAD = "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: p}\n"


def tfpolicy(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, cwd=cwd, text=True,
                          input=stdin, timeout=60, check=False)


def test_policy_field_and_stage(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(HEAD + 'spec:\n  stage: takover\n  enabledReplica: "25%"\n')
    done = tfpolicy("validate", "p.yaml", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0].startswith("p.yaml:5:10:") and "did you mean takeover?" in lines[0]
    assert lines[1].startswith("p.yaml:6:") and "did you mean enabledReplicas?" in lines[1]
    (tmp_path / "p.yaml").write_text(HEAD + "spec:\n  stage: sideways\n")
    assert "did you mean" not in tfpolicy("validate", "p.yaml", cwd=tmp_path).stderr


def test_config_field(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".tfpolicy.yaml").write_text("policy: [takeover]\n")
    done = tfpolicy("validate", cwd=tmp_path)
    assert done.returncode == 2 and "did you mean policies?" in done.stderr, done.stderr


def test_krm_stage(tmp_path: Path) -> None:
    resource_list = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
                     "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n"
                     "  metadata: {name: function-input}\n"
                     "  data: {policies: takeover, stage: rolback}\n")
    done = tfpolicy("krm", cwd=tmp_path, stdin=resource_list)
    assert done.returncode == 1
    messages = [r["message"] for r in yaml.safe_load(done.stdout)["results"]]
    assert messages == ["unknown stage 'rolback' (did you mean rollback? valid: takeover, "
                        "rightsize, rollback)"]


def test_builtin_policy_name(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    done = tfpolicy("check", "-p", "takover", "app.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "(did you mean takeover? built-in: " in done.stderr
    assert "did you mean" not in tfpolicy("check", "-p", "sideways", "app.yaml",
                                          cwd=tmp_path).stderr
