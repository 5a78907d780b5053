"""What a repository or a file named on the command line holds is data: no error quotes a
file that is no policy, a ``.tfpolicy.yaml`` is read only inside its repository, and a
KRM item's ``package-path`` cannot widen the folder policies are read from (issue 24 §4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
EXAMPLE = ROOT / "examples" / "manifests" / "llm-server.yaml"
POLICY = ROOT / "policies" / "takeover.yaml"
SECRET = "s3cr3t-" + "x9" * 8  # short: shown whole by any message that quotes values
PASSWD = f"root:x:0:0:{SECRET}:/root:/bin/bash\n"


def tfpolicy(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    return subprocess.run([TFPOLICY, *args], cwd=cwd, env=env, input=stdin, text=True,
                          capture_output=True, timeout=120, check=False)


def _no_content(done: subprocess.CompletedProcess[str]) -> None:
    both = done.stdout + done.stderr
    assert SECRET not in both and "root:x" not in both and "/bin/bash" not in both, both


@pytest.mark.parametrize("content,shape", [
    (PASSWD, "the document is a string, not a policy mapping"),
    (PASSWD * 3, "the document is a string, not a policy mapping"),
    (f"- {SECRET}\n- root\n", "the document is a list of 2 items, not a policy mapping"),
    (f"{SECRET}: 1\nroot: x\n", "a mapping without kind: MigrationPolicy"),
    (f"kind: {SECRET}\nmetadata: {{name: {SECRET}}}\n", "a mapping without kind: Migration"),
    ("--- 12\n", "the document is a number, not a policy mapping"),
], ids=["passwd-line", "passwd", "list", "mapping", "other-kind", "number"])
@pytest.mark.parametrize("command", ["apply", "check", "fix", "validate"])
def test_an_explicit_policy_that_is_no_policy_is_named_by_its_shape(
        tmp_path: Path, content: str, shape: str, command: str) -> None:
    (tmp_path / "passwd").write_text(content)
    shutil.copyfile(EXAMPLE, tmp_path / "app.yaml")
    before = (tmp_path / "app.yaml").read_bytes()
    args = ["passwd"] if command == "validate" else ["-p", "passwd", "app.yaml"]
    done = tfpolicy(command, *args, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert shape in done.stderr and done.stderr.startswith("passwd:1:"), done.stderr
    _no_content(done)
    assert (tmp_path / "app.yaml").read_bytes() == before


def test_a_policy_keeps_its_quoted_values(tmp_path: Path) -> None:
    """A document that says it is a MigrationPolicy is the user's own: a typo is named."""
    (tmp_path / "p.yaml").write_text(POLICY.read_text().replace("stage: takeover",
                                                                "stage: takover"))
    done = tfpolicy("validate", "p.yaml", cwd=tmp_path)
    assert done.returncode == 2 and "'takover' is not one of" in done.stderr, done.stderr


def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copyfile(EXAMPLE, repo / "app.yaml")
    return repo


def test_a_project_config_that_is_no_mapping_is_named_by_its_shape(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".tfpolicy.yaml").write_text(PASSWD)
    done = tfpolicy("check", "app.yaml", cwd=repo)
    assert done.returncode == 2 and "not a project config mapping" in done.stderr, done.stderr
    _no_content(done)


@pytest.mark.parametrize("command", [["check", "app.yaml"], ["fix", "app.yaml"],
                                     ["apply", "app.yaml"], ["validate", "--discover",
                                                             ".tfpolicy.yaml"]])
def test_a_project_config_linked_outside_the_repository_is_refused(
        tmp_path: Path, command: list[str]) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "outside.yaml").write_text(PASSWD)
    (repo / ".tfpolicy.yaml").symlink_to(tmp_path / "outside.yaml")
    before = (repo / "app.yaml").read_bytes()
    done = tfpolicy(*command, cwd=repo)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "outside the repository" in done.stderr and ".tfpolicy.yaml" in done.stderr
    _no_content(done)
    assert (repo / "app.yaml").read_bytes() == before
    # The same config, linked from inside the repository, is read.
    (tmp_path / "outside.yaml").write_text("policies: [takeover]\n")
    (repo / "shared.yaml").write_text("policies: [takeover]\n")
    (repo / ".tfpolicy.yaml").unlink()
    (repo / ".tfpolicy.yaml").symlink_to("shared.yaml")
    assert tfpolicy("check", "app.yaml", cwd=repo).returncode == 1  # would change: read


def test_argocd_refuses_a_project_config_linked_outside(tmp_path: Path) -> None:
    repo = tmp_path / "_cmp_server" / "r4nd0m"
    app = repo / "apps" / "web"
    app.mkdir(parents=True)
    shutil.copyfile(EXAMPLE, app / "llm-server.yaml")
    (tmp_path / "outside.yaml").write_text(PASSWD)
    (app / ".tfpolicy.yaml").symlink_to(tmp_path / "outside.yaml")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env.update(ARGOCD_APP_SOURCE_PATH="apps/web", ARGOCD_APP_NAMESPACE="ml")
    done = subprocess.run([TFPOLICY, "argocd", "generate"], cwd=app, env=env, text=True,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "outside the repository" in done.stderr
    _no_content(done)


def _resource_list(package_path: str, policies: str) -> str:
    kptfile = {"apiVersion": "kpt.dev/v1", "kind": "Kptfile", "metadata": {
        "name": "pkg", "annotations": {"internal.config.kubernetes.io/path": "Kptfile",
                                       "internal.config.kubernetes.io/package-path":
                                           package_path}}}
    items = [kptfile, *[d for d in yaml.safe_load_all(EXAMPLE.read_text()) if d]]
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"},
              "data": {"policies": policies}}
    return yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                           "items": items, "functionConfig": config}, sort_keys=False)


@pytest.mark.parametrize("where", ["/", "../..", "..", "outside"])
def test_krm_package_path_cannot_widen_where_policies_are_read(
        tmp_path: Path, where: str) -> None:
    """A valid policy outside the working directory: read, the function would succeed."""
    cwd = tmp_path / "a" / "b"
    cwd.mkdir(parents=True)
    (tmp_path / "a" / "outside.yaml").write_text(POLICY.read_text())
    target = {"/": "/", "../..": "../..", "..": "..", "outside": str(tmp_path / "a")}[where]
    base = Path("/") if where == "/" else (cwd / target).resolve()
    policies = os.path.relpath(tmp_path / "a" / "outside.yaml", base)
    done = tfpolicy("krm", cwd=cwd, stdin=_resource_list(target, policies))
    assert done.returncode == 1, done.stdout
    out = yaml.safe_load(done.stdout)
    messages = [r["message"] for r in out["results"] if r["severity"] == "error"]
    assert len(messages) == 1 and "package-path" in messages[0], messages
    assert "tensor-fusion.ai" not in done.stdout  # nothing was migrated by that policy


def test_krm_package_path_of_the_real_package_is_taken(tmp_path: Path) -> None:
    """The form kpt sends (an absolute folder holding that Kptfile) still names the package."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\n"
                                     "metadata: {name: pkg}\n")
    (package / "p.yaml").write_text(POLICY.read_text())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = tfpolicy("krm", cwd=elsewhere, stdin=_resource_list(str(package), "p.yaml"))
    assert done.returncode == 0, done.stdout
    assert "tensor-fusion.ai/enabled" in done.stdout


def test_krm_package_path_absent_here_reads_the_working_directory(tmp_path: Path) -> None:
    """kpt runs an image with none of the host's files: its package-path does not exist
    there, so the function's own folder applies, never anything wider."""
    cwd = tmp_path / "container-workdir"
    cwd.mkdir()
    (cwd / "p.yaml").write_text(POLICY.read_text())
    absent = str(tmp_path / "on-the-host" / "pkg")
    done = tfpolicy("krm", cwd=cwd, stdin=_resource_list(absent, "p.yaml"))
    assert done.returncode == 0, done.stdout
    assert "tensor-fusion.ai/enabled" in done.stdout
    escape = tfpolicy("krm", cwd=cwd, stdin=_resource_list(absent, "../outside.yaml"))
    assert escape.returncode == 1 and "tensor-fusion.ai" not in escape.stdout
