"""The CMP ``generate`` command exactly as plugins/argocd/plugin.yaml declares it (hosts.md §3)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import yaml
from hostlib import BIN, EXAMPLES, ROOT, host_env, run

PLUGIN = yaml.safe_load((ROOT / "plugins" / "argocd" / "plugin.yaml").read_text())


def _app(tmp: Path, source: Path, config: str) -> Path:
    """A copy of an app as the cmp-server unpacks it: files 0644, under the source path."""
    app = tmp / "repo" / "apps" / "gpu"
    shutil.copytree(source, app)
    (app / ".tfpolicy.yaml").write_text(config)
    for path in app.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return app


def _generate(app: Path, path: str | None = None, **env: str) -> tuple[int, str, str]:
    spec = PLUGIN["spec"]
    command = [*spec["generate"]["command"], *spec["generate"].get("args", [])]
    cmp_env = {"ARGOCD_APP_NAME": "gpu", "ARGOCD_APP_NAMESPACE": "ml-serving",
               "ARGOCD_APP_SOURCE_PATH": "apps/gpu", "KUBE_VERSION": "1.32.4",
               "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/ml.git",
               "ARGOCD_APP_REVISION": "0123456789abcdef"}
    base = host_env(**{**cmp_env, **env})
    if path is not None:
        base["PATH"] = path
    done = run(command, app, base)
    return done.returncode, done.stdout, done.stderr


def _pod_meta(stdout: str, kind: str) -> dict[str, dict[str, str]]:
    doc = next(d for d in yaml.safe_load_all(stdout) if d and d["kind"] == kind)
    return doc["spec"]["template"]["metadata"]  # type: ignore[no-any-return]


def test_plugin_definition_discovers_and_announces_parameters() -> None:
    assert (PLUGIN["apiVersion"], PLUGIN["kind"]) == ("argoproj.io/v1alpha1",
                                                     "ConfigManagementPlugin")
    assert PLUGIN["spec"]["discover"] == {"fileName": ".tfpolicy.yaml"}
    params = {p["name"]: p["collectionType"] for p in PLUGIN["spec"]["parameters"]["static"]}
    assert params == {"policies": "array", "stage": "string", "helm-value-files": "array",
                      "helm-values": "string", "helm-parameters": "map",
                      "helm-release-name": "string", "kustomize-enable-helm": "string",
                      "kustomize-load-restrictor": "string"}
    assert PLUGIN["spec"]["init"]["command"] == ["tfpolicy", "argocd", "init"]


def test_plain_folder_app(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("llm-server.yaml", "monitoring.yaml"):
        shutil.copyfile(EXAMPLES / name, source / name)
    (source / "gpu-policy.yaml").write_text(
        "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: canary}\n"
        "spec: {stage: takeover, enabledReplicas: 1}\n")
    app = _app(tmp_path, source, "policies: [gpu-policy.yaml]\n")
    code, out, err = _generate(app)
    assert code == 0, err
    docs = [d for d in yaml.safe_load_all(out) if d]
    assert "MigrationPolicy" not in {d["kind"] for d in docs}  # configuration, not a manifest
    assert len(docs) == 5  # 4 objects of llm-server.yaml, the ConfigMap of monitoring.yaml
    meta = _pod_meta(out, "Deployment")
    assert meta["annotations"]["tensor-fusion.ai/enabled-replicas"] == "1"
    assert out.startswith("# Rendered with:")  # the files' own text, comments kept


def test_parameters_override_env_which_overrides_the_project_config(tmp_path: Path) -> None:
    app = _app(tmp_path, ROOT / "plugins" / "kustomize" / "example" / "base",
               "policies: [rollback]\n")
    code, out, err = _generate(app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover-50")
    assert code == 0, err
    assert _pod_meta(out, "Deployment")["annotations"]["tensor-fusion.ai/enabled-replicas"] == "2"
    params = [{"name": "policies", "array": ["takeover"]}, {"name": "stage", "string": "takeover"}]
    code, out, err = _generate(app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover-50",
                               ARGOCD_APP_PARAMETERS=json.dumps(params),
                               PARAM_POLICIES_0="takeover", PARAM_STAGE="takeover")
    assert code == 0, err
    meta = _pod_meta(out, "Deployment")  # rendered by kubectl kustomize
    assert meta["labels"]["tensor-fusion.ai/enabled"] == "true"
    assert "tensor-fusion.ai/enabled-replicas" not in meta["annotations"]
    stage = [{"name": "stage", "string": "rollback"}]
    code, out, err = _generate(app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover",
                               ARGOCD_APP_PARAMETERS=json.dumps(stage))
    assert code == 0, err
    assert "tensor-fusion.ai" not in out


def test_namespace_default_is_the_app_destination(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    text = (ROOT / "plugins/kustomize/example/base/inference.yaml").read_text()
    (source / "inference.yaml").write_text(text)
    app = _app(tmp_path, source, "policies: [ns-policy.yaml]\n")
    (app / "ns-policy.yaml").write_text(
        "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: ns}\n"
        "spec: {stage: takeover, match: {namespaces: [team-a]}}\n")
    code, out, _ = _generate(app, ARGOCD_APP_NAMESPACE="team-a")
    assert code == 0 and "tensor-fusion.ai/enabled" in out
    code, out, _ = _generate(app, ARGOCD_APP_NAMESPACE="team-b")
    assert code == 0 and "tensor-fusion.ai/enabled" not in out


def test_failures_exit_non_zero_with_one_line_and_no_manifests(tmp_path: Path) -> None:
    app = _app(tmp_path, ROOT / "plugins" / "kustomize" / "example" / "base",
               "policies: [no-such-policy]\n")
    code, out, err = _generate(app)
    assert code != 0 and out == "" and "no-such-policy" in err and err.count("\n") == 1
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    (app / "kustomization.yaml").write_text("resources: [missing.yaml]\n")
    code, out, err = _generate(app)
    assert code != 0 and out == "" and "`kubectl kustomize .` failed" in err
    assert err.count("\n") == 1


def test_chart_without_helm_is_a_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "chart"
    (source / "templates").mkdir(parents=True)
    (source / "Chart.yaml").write_text("apiVersion: v2\nname: gpu\nversion: 0.1.0\n")
    app = _app(tmp_path, source, "policies: [takeover]\n")
    code, out, err = _generate(app, path=str(BIN))  # a sidecar image without helm
    assert code != 0 and out == ""
    assert "helm is not installed" in err


def test_plain_folder_app_leaves_out_what_its_config_excludes(tmp_path: Path) -> None:
    """The config's ``exclude:`` (docs/hosts.md, "Excluding files") holds for the render."""
    source = tmp_path / "src"
    source.mkdir()
    shutil.copyfile(EXAMPLES / "llm-server.yaml", source / "llm-server.yaml")
    (source / "notes.yaml").write_text("{{ not: yaml\n")
    app = _app(tmp_path, source, "policies: [takeover]\nexclude: [notes.yaml]\n")
    code, out, err = _generate(app)
    assert code == 0, err
    assert "Deployment" in {d["kind"] for d in yaml.safe_load_all(out) if d}
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    code, out, err = _generate(app)
    assert code == 2 and "notes.yaml:1:" in err and out == "", err
