"""The legacy exec plugin under the real ``kubectl kustomize`` (hosts.md §2, §1.5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hostlib import ROOT, TFPOLICY, host_env, need, run, tfpolicy

EXAMPLE = ROOT / "plugins" / "kustomize" / "example"


def _build(folder: Path, home: Path) -> tuple[int, list[dict[str, object]], str]:
    kubectl = need("kubectl")
    env = host_env(KUSTOMIZE_PLUGIN_HOME=str(home), TFPOLICY=str(TFPOLICY))
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", "."], folder, env)
    return done.returncode, list(yaml.safe_load_all(done.stdout)), done.stderr


def _template(docs: list[dict[str, object]]) -> dict[str, object]:
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    return deployment["spec"]["template"]["metadata"]  # type: ignore[index]


def test_install_plugin_then_kubectl_kustomize_runs_it(tmp_path: Path) -> None:
    home = tmp_path / "plugins"
    done = tfpolicy("kustomize", "install-plugin", "--plugin-home", str(home), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plugin = home / "tfpolicy.dev/v1alpha1/migrationpolicy/MigrationPolicy"
    assert done.stdout.strip() == str(plugin)
    assert plugin.stat().st_mode & 0o111 and plugin.read_text().startswith("#!")
    code, docs, err = _build(EXAMPLE / "legacy", home)
    assert code == 0, err
    meta = _template(docs)
    assert meta["labels"]["tensor-fusion.ai/enabled"] == "true"  # type: ignore[index]
    assert meta["annotations"] == {"tensor-fusion.ai/isolation": "shared",
                                   "tensor-fusion.ai/enabled-replicas": "1",
                                   "tfpolicy.dev/original": (
                                       '{"labels":{"tensor-fusion.ai/enabled":{}},"annotations":'
                                       '{"tensor-fusion.ai/isolation":{},'
                                       '"tensor-fusion.ai/enabled-replicas":{}},'
                                       '"maps":{"annotations":{}}}')}
    assert {d["kind"] for d in docs} == {"Deployment", "Service"}  # nothing dropped


def test_the_repo_folder_is_a_plugin_home_too(tmp_path: Path) -> None:
    code, docs, err = _build(EXAMPLE / "legacy", ROOT / "plugins" / "kustomize")
    assert code == 0, err
    assert _template(docs)["labels"]["tensor-fusion.ai/enabled"] == "true"  # type: ignore[index]


def test_a_failing_policy_fails_the_build_with_our_message(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app)
    policy = app / "legacy" / "migration.yaml"
    policy.write_text(policy.read_text().replace("stage: takeover", "stage: sideways"))
    code, _, err = _build(app / "legacy", ROOT / "plugins" / "kustomize")
    assert code != 0
    assert "[error]" in err and "sideways" in err and "failure in plugin" in err


def test_kubectl_kustomize_silently_skips_exec_krm_functions(tmp_path: Path) -> None:
    """The gotcha the docs warn about (hosts.md §1.5, §7.2): exit 0, resources unchanged."""
    code, docs, err = _build(EXAMPLE / "krm", tmp_path / "no-plugins")
    assert code == 0, err
    assert "tensor-fusion.ai/enabled" not in str(docs)
