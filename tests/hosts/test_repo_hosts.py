"""The hosts read nothing outside the repository, survive odd numbers, and fail on a closed
stdout (issue 8 §2, §4)."""

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
SECRET = "token-" + "s3cr3t" * 30
SECRET_DOC = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: sa-token}}\nstringData: {{t: {SECRET}}}\n"


def tfpolicy(*args: str, cwd: Path, stdin: str | None = None,
             **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    full.update(env)
    return subprocess.run([TFPOLICY, *args], cwd=cwd, env=full, input=stdin, text=True,
                          capture_output=True, timeout=120, check=False)


def _unpacked(tmp: Path) -> Path:
    """An app as the cmp-server unpacks a repository: ``<workdir>/<random>/apps/web``."""
    repo = tmp / "_cmp_server" / "r4nd0m"
    app = repo / "apps" / "web"
    app.mkdir(parents=True)
    shutil.copyfile(EXAMPLE, app / "llm-server.yaml")
    (repo / "policies").mkdir()
    shutil.copyfile(POLICY, repo / "policies" / "p.yaml")
    (tmp / "outside.yaml").write_text(SECRET_DOC)
    return app


def _generate(app: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return tfpolicy("argocd", "generate", cwd=app, ARGOCD_APP_SOURCE_PATH="apps/web",
                    ARGOCD_APP_NAMESPACE="ml", **env)


@pytest.mark.parametrize("env", [
    {"ARGOCD_ENV_TFPOLICY_POLICIES": "/etc/passwd"},
    {"ARGOCD_ENV_TFPOLICY_POLICIES": "../../../outside.yaml"},
    {"ARGOCD_APP_PARAMETERS": '[{"name": "policies", "array": ["../../../outside.yaml"]}]'},
    {"PARAM_POLICIES_0": "/etc/hostname"},
], ids=["env-absolute", "env-relative", "parameters", "param-array"])
def test_argocd_policy_paths_stay_in_the_repository(tmp_path: Path, env: dict[str, str]) -> None:
    done = _generate(_unpacked(tmp_path), **env)
    assert done.returncode == 2 and done.stdout == ""
    assert "leaves the repository" in done.stderr and SECRET not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_argocd_policy_paths_inside_the_repository_work(tmp_path: Path) -> None:
    done = _generate(_unpacked(tmp_path), ARGOCD_ENV_TFPOLICY_POLICIES="../../policies/p.yaml")
    assert done.returncode == 0, done.stderr
    assert "tensor-fusion.ai/enabled" in done.stdout


def test_argocd_config_above_the_repository_is_not_used(tmp_path: Path) -> None:
    app = _unpacked(tmp_path)
    (tmp_path / ".tfpolicy.yaml").write_text("policies: [takeover]\n")  # in the cmp workdir
    done = _generate(app)
    assert (done.returncode, done.stdout) == (2, "")
    assert "no policy" in done.stderr


def test_argocd_config_in_the_repository_cannot_point_outside(tmp_path: Path) -> None:
    app = _unpacked(tmp_path)
    (app / ".tfpolicy.yaml").write_text("policies: [../../../outside.yaml]\n")
    done = _generate(app)
    assert (done.returncode, done.stdout) == (2, "")
    assert "leaves the repository" in done.stderr and SECRET not in done.stderr


def test_argocd_refuses_a_symlink_that_leaves_the_repository(tmp_path: Path) -> None:
    app = _unpacked(tmp_path)
    (app / "token.yaml").symlink_to(tmp_path / "outside.yaml")
    done = _generate(app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("token.yaml: error: a symlink that leaves the repository: ArgoCD "
                           "refuses these, and so does tfpolicy\n")


def test_argocd_follows_a_symlink_kept_inside_the_repository(tmp_path: Path) -> None:
    app = _unpacked(tmp_path)
    shared = app.parent.parent / "shared"
    shared.mkdir()
    (shared / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n")
    (app / "svc.yaml").symlink_to(Path("..", "..", "shared", "svc.yaml"))
    done = _generate(app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover")
    assert done.returncode == 0, done.stderr
    assert "name: svc" in done.stdout


RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      internal.config.kubernetes.io/index: {index}
      internal.config.kubernetes.io/path: {path}
  spec:
    template:
      spec:
        containers:
        - name: app
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
- apiVersion: v1
  kind: Service
  metadata: {{name: web}}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {{name: function-input}}
  data: {{policies: {policies}, namespace: {namespace}}}
"""
GOOD = {"index": "'0'", "path": "web.yaml", "policies": "takeover", "namespace": "ml"}


def _krm(cwd: Path, **fields: str) -> tuple[int, dict[str, object], str]:
    done = tfpolicy("krm", cwd=cwd, stdin=RESOURCE_LIST.format(**{**GOOD, **fields}))
    assert done.stdout, done.stderr  # kpt reads the results even when the function fails
    # Strings only: a 5,000-digit index comes back as written, which PyYAML's int() refuses.
    out = yaml.load(done.stdout, Loader=yaml.BaseLoader)
    assert (out["apiVersion"], out["kind"]) == ("config.kubernetes.io/v1", "ResourceList")
    return done.returncode, out, done.stderr


@pytest.mark.parametrize("field,value", [
    ("index", ".inf"), ("index", ".nan"), ("index", "-1"), ("index", "9" * 5000),
    ("index", "'12345678901234567890'"), ("path", ".inf"), ("path", "[a, b]"),
    ("policies", ".inf"), ("policies", "9" * 5000), ("policies", "[takeover]"),
    ("namespace", ".nan"), ("namespace", "{a: 1}"),
], ids=lambda v: v[:12])
def test_krm_odd_numbers_give_an_error_result_and_exit_1(tmp_path: Path, field: str,
                                                         value: str) -> None:
    code, out, err = _krm(tmp_path, **{field: value})
    assert code == 1, err
    results = out["results"]
    assert isinstance(results, list) and any(r["severity"] == "error" for r in results)
    if len(value) < 100 or field == "index":  # a list read item by item comes back whole
        assert [i["kind"] for i in out["items"]] == ["Deployment", "Service"]  # type: ignore[attr-defined]


def test_krm_good_numbers_pass(tmp_path: Path) -> None:
    for index in ("'0'", "3"):
        code, out, err = _krm(tmp_path, index=index)
        assert code == 0, (err, out.get("results"))


def test_krm_policy_paths_stay_in_the_package(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(SECRET_DOC)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    for ref in ("/etc/passwd", "../outside.yaml", "link.yaml"):
        code, out, _ = _krm(package, policies=f"'{ref}'")
        assert code == 1
        messages = " ".join(r["message"] for r in out["results"])  # type: ignore[attr-defined]
        assert "leaves the repository" in messages and SECRET not in messages
    shutil.copyfile(POLICY, package / "p.yaml")
    code, out, _ = _krm(package, policies="p.yaml")
    assert code == 0, out.get("results")


def _closed_pipe(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a real pipe whose reader is already gone (``tfpolicy … | true``)."""
    read, write = os.pipe()
    os.close(read)
    try:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
        return subprocess.run([TFPOLICY, *args], cwd=cwd, env={**full, **env}, stdout=write,
                              stderr=subprocess.PIPE, timeout=120, check=False)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [
    ("argocd", "generate"), ("apply", "-p", "takeover", "llm-server.yaml"),
    ("check", "-p", "takeover", "llm-server.yaml"), ("fix", "-p", "takeover", "llm-server.yaml"),
], ids=lambda a: a[0])
def test_a_closed_stdout_fails_quietly(tmp_path: Path, args: tuple[str, ...]) -> None:
    shutil.copyfile(EXAMPLE, tmp_path / "llm-server.yaml")
    done = _closed_pipe(*args, cwd=tmp_path, ARGOCD_ENV_TFPOLICY_POLICIES="takeover")
    assert done.returncode == 141
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr
    assert b"internal error" not in done.stderr


def test_argocd_generate_piped_into_a_reader_that_quits(tmp_path: Path) -> None:
    shutil.copyfile(EXAMPLE, tmp_path / "llm-server.yaml")
    script = f"set -o pipefail; {TFPOLICY} argocd generate | true"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "ARGOCD_ENV_TFPOLICY_POLICIES": "takeover"},
                          timeout=120, check=False)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
