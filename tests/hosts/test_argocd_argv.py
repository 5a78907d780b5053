"""No value from an Application (its name, namespace, plugin parameters) reaches a flag
position of a render tool, run as the cmp-server runs ``generate`` (DESIGN §4a).

The stand-in ``helm`` of test_argocd_options records every argv it is called with.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hostlib import ROOT, host_env, need, run
from test_argocd_options import _calls, _chart_app, _cmp

# The flags tfpolicy itself gives ``helm template``, each as one --flag=value argument.
HELM_FLAGS = {"--namespace", "--values", "--set", "--kube-version", "--api-versions"}
HOSTILE = ["--post-renderer=./x.sh", "-f../../outside.yaml", "-n", "--", "-"]


def _helm_args(tmp: Path) -> list[list[str]]:
    return _calls(tmp) if (tmp / "helm.log").exists() else []


def _one_line_naming(err: str, name: str) -> None:
    assert err.count("\n") == 1 and name in err, err


@pytest.mark.parametrize("value", [*HOSTILE, "Upper", "a_b", "x" * 54, "a..b", "-a"])
def test_a_release_name_that_is_no_name_is_refused(tmp_path: Path, value: str) -> None:
    app = _chart_app(tmp_path)
    params = [{"name": "helm-release-name", "string": value}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert (code, out) == (2, "")
    _one_line_naming(err, "helm-release-name")
    assert _helm_args(tmp_path) == []  # helm never ran


@pytest.mark.parametrize("value", ["--post-renderer=./x.sh", "-f../../outside.yaml",
                                   "ns_app"])
def test_an_app_name_that_is_no_release_name_is_refused(tmp_path: Path, value: str) -> None:
    app = _chart_app(tmp_path)
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_NAME=value)
    assert (code, out) == (2, "")
    _one_line_naming(err, "ARGOCD_APP_NAME")
    assert _helm_args(tmp_path) == []


@pytest.mark.parametrize("value", ["--post-renderer=./x.sh", "-f../x.yaml", "Team_A"])
def test_a_namespace_that_is_no_namespace_is_refused(tmp_path: Path, value: str) -> None:
    app = _chart_app(tmp_path)
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_NAMESPACE=value)
    assert (code, out) == (2, "")
    _one_line_naming(err, "ARGOCD_APP_NAMESPACE")
    assert _helm_args(tmp_path) == []


@pytest.mark.parametrize("value", [
    "-f../../outside.yaml", "--post-renderer=./x.sh", "-",  # options, stdin
    "s3:/bucket/values.yaml", "s3://bucket/values.yaml", "oci:registry/chart",  # remote
    "https://example.com/v.yaml", "file:values-prod.yaml", "gs:/b/v.yaml",
])
def test_a_value_file_that_is_no_repository_file_is_refused(tmp_path: Path, value: str) -> None:
    app = _chart_app(tmp_path)
    params = [{"name": "helm-value-files", "array": ["values-prod.yaml", value]}]
    code, out, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params))
    assert (code, out) == (2, "")
    _one_line_naming(err, "helm-value-files")
    assert _helm_args(tmp_path) == []


def test_flag_like_values_reach_helm_as_values_only(tmp_path: Path) -> None:
    """Values that may be anything (``--set`` keys and values) go inside one
    ``--flag=value`` argument: every argument helm gets after the two positionals is one
    of tfpolicy's own flags."""
    app = _chart_app(tmp_path)
    params = [{"name": "helm-parameters", "map": {h: h for h in HOSTILE}},
              {"name": "helm-value-files", "array": ["values-prod.yaml"]},
              {"name": "helm-release-name", "string": "serving.v2"}]
    code, _, err = _cmp(app, "generate", tmp_path, ARGOCD_APP_PARAMETERS=json.dumps(params),
                        KUBE_VERSION="--post-renderer=./x.sh",
                        KUBE_API_VERSIONS="apps/v1,-f../../outside.yaml")
    assert code == 0, err
    (args,) = _helm_args(tmp_path)
    assert args[:3] == ["template", "serving.v2", "."]
    assert all(a.partition("=")[0] in HELM_FLAGS and "=" in a for a in args[3:]), args
    for hostile in HOSTILE:
        assert hostile not in args
    assert f"--set={HOSTILE[0]}={HOSTILE[0]}" in args
    assert "--kube-version=--post-renderer=./x.sh" in args


def test_kustomize_plugin_arguments_from_the_repository_are_no_options(tmp_path: Path) -> None:
    """kustomize appends the transformer config's ``argsOneLiner`` to the plugin's argv:
    the repository's text; ``--help`` must not turn the plugin into a help printer."""
    kubectl = need("kubectl")
    example = ROOT / "plugins" / "kustomize" / "example"
    shutil.copytree(example, tmp_path / "example")
    legacy = tmp_path / "example" / "legacy"
    config = legacy / "migration.yaml"
    config.write_text(config.read_text() + "argsOneLiner: --help\n")
    env = host_env(KUSTOMIZE_PLUGIN_HOME=str(ROOT / "plugins" / "kustomize"))
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", "."], legacy, env)
    assert done.returncode != 0 and done.stdout == ""
    assert "unexpected extra argument (--help)" in done.stderr, done.stderr
