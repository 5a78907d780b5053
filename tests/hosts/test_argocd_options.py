"""The CMP ``generate``/``init`` with Helm and kustomize options (plugin parameters).

Helm has no package in the registries this project installs from, so the Helm
path runs a stand-in ``helm`` that records its arguments and prints a rendered
Deployment; kustomize options run through the real ``kubectl kustomize``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import yaml
from hostlib import BIN, ROOT, host_env, run

PLUGIN = yaml.safe_load((ROOT / "plugins" / "argocd" / "plugin.yaml").read_text())
BASE = ROOT / "plugins" / "kustomize" / "example" / "base"
# Records argv (one JSON line per call) and prints the example Deployment, as helm template would.
FAKE_HELM = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["HELM_RECORD"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1] == "template":
    sys.stdout.write(open({str(BASE / "inference.yaml")!r}).read())
if os.environ.get("HELM_FAIL"):
    sys.stderr.write("Error: first line\\nsecond line names the cause\\n")
    sys.exit(1)
"""


def _chart_app(tmp: Path) -> Path:
    app = tmp / "repo" / "apps" / "gpu"
    (app / "templates").mkdir(parents=True)
    (app / "Chart.yaml").write_text("apiVersion: v2\nname: gpu\nversion: 0.1.0\n"
                                    "dependencies:\n- {name: common, version: 1.0.0, "
                                    "repository: file://../common}\n")
    (app / "values-prod.yaml").write_text("replicas: 3\n")
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    return app


def _cmp(app: Path, step: str, tmp: Path, **env: str) -> tuple[int, str, str]:
    fake = tmp / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "helm").write_text(FAKE_HELM)
    (fake / "helm").chmod(0o755)
    cmp_env = {"ARGOCD_APP_NAME": "gpu", "ARGOCD_APP_NAMESPACE": "ml-serving",
               "ARGOCD_APP_SOURCE_PATH": "apps/gpu", "KUBE_VERSION": "1.32.4",
               "KUBE_API_VERSIONS": "apps/v1,batch/v1", "HELM_RECORD": str(tmp / "helm.log")}
    environment = host_env(**{**cmp_env, **env})
    environment["PATH"] = f"{fake}{os.pathsep}{BIN}{os.pathsep}/usr/bin:/bin"
    done = run(PLUGIN["spec"][step]["command"], app, environment)
    return done.returncode, done.stdout, done.stderr


def _calls(tmp: Path) -> list[list[str]]:
    return [json.loads(line) for line in (tmp / "helm.log").read_text().splitlines()]


def test_helm_options_reach_helm_template(tmp_path: Path) -> None:
    app = _chart_app(tmp_path)
    code, _, err = _cmp(app, "init", tmp_path)
    assert code == 0, err
    assert _calls(tmp_path) == [["dependency", "build"]]
    params = [{"name": "helm-value-files", "array": ["values-prod.yaml"]},
              {"name": "helm-values", "string": "gpu: {count: 2}\n"},
              {"name": "helm-parameters", "map": {"image.tag": "v2", "a": "1"}},
              {"name": "helm-release-name", "string": "serving"}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert code == 0, err
    args = _calls(tmp_path)[-1]
    inline = args[args.index("--values=values-prod.yaml") + 1].removeprefix("--values=")
    # Each flag and its value in one argument: no value can be read as a flag of its own.
    assert args == ["template", "serving", ".", "--namespace=ml-serving",
                    "--values=values-prod.yaml", f"--values={inline}",
                    "--set=a=1", "--set=image.tag=v2", "--kube-version=1.32.4",
                    "--api-versions=apps/v1", "--api-versions=batch/v1"]
    assert not Path(inline).exists()  # the inline values' scratch file is gone
    assert "tensor-fusion.ai/enabled" in out


def test_helm_value_file_outside_the_repository_is_refused(tmp_path: Path) -> None:
    app = _chart_app(tmp_path)
    params = [{"name": "helm-value-files", "array": ["../../../../etc/passwd"]}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert code == 2 and out == "" and "inside the repository" in err
    assert not (tmp_path / "helm.log").exists()


def test_renderer_failure_shows_its_whole_stderr(tmp_path: Path) -> None:
    app = _chart_app(tmp_path)
    code, out, err = _cmp(app, "generate", tmp_path, HELM_FAIL="1")
    assert code == 2 and out == ""
    assert "Error: first line | second line names the cause" in err and err.count("\n") == 1


def test_kustomize_build_options(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "apps" / "gpu"
    app.mkdir(parents=True)
    shutil.copytree(BASE, tmp_path / "repo" / "shared")
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    (app / "kustomization.yaml").write_text("resources: [../../shared/inference.yaml]\n")
    code, out, err = _cmp(app, "generate", tmp_path)
    assert code == 2 and out == "" and "is not in or below" in err, err  # RootOnly default
    params = [{"name": "kustomize-load-restrictor", "string": "LoadRestrictionsNone"}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert code == 0, err
    assert "tensor-fusion.ai/enabled" in out
    params = [{"name": "kustomize-load-restrictor", "string": "--enable-exec"}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert code == 2 and "must be one of" in err


def test_sidecar_is_hardened_and_images_pin_by_build_argument(tmp_path: Path) -> None:
    """The component renders (real kubectl kustomize) onto a repo-server with the hardening."""
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "repo-server.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: argocd-repo-server}\n"
        "spec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
        "    spec:\n      containers: [{name: argocd-repo-server, image: argocd}]\n")
    shutil.copytree(ROOT / "plugins" / "argocd", overlay / "component")
    (overlay / "kustomization.yaml").write_text(
        "resources: [repo-server.yaml]\ncomponents: [component]\n"
        "images: [{name: tfpolicy-cmp, newName: registry.example/tfpolicy-cmp, "
        "digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000'}]\n")
    done = run(["kubectl", "kustomize", "."], overlay)
    assert done.returncode == 0, done.stderr
    deployment = next(d for d in yaml.safe_load_all(done.stdout) if d["kind"] == "Deployment")
    sidecar = next(c for c in deployment["spec"]["template"]["spec"]["containers"]
                   if c["name"] == "tfpolicy")
    assert sidecar["image"].startswith("registry.example/tfpolicy-cmp@sha256:")
    assert sidecar["securityContext"] == {
        "runAsNonRoot": True, "runAsUser": 999, "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"}}
    for dockerfile in ("argocd", "krm"):
        text = (ROOT / "plugins" / dockerfile / "Dockerfile").read_text()
        assert "ARG PYTHON_IMAGE=" in text and "FROM ${PYTHON_IMAGE}" in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv"} <= set(ignored)
