"""``tfpolicy argocd generate`` refuses what it does not understand, as the cmp-server runs it:
in the app folder, with the Application's ``ARGOCD_APP_*``, ``ARGOCD_ENV_*`` and
``PARAM_*`` environment (hosts.md §3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from hostlib import EXAMPLES, ROOT, host_env, run

from tfpolicy.hosts.argocd_settings import ENV, PARAMETERS

PLUGIN = yaml.safe_load((ROOT / "plugins" / "argocd" / "plugin.yaml").read_text())
COMPOSE = ("services:\n  web:\n    image: vllm/vllm-openai\n    deploy: {resources: "
           "{reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n")


def _app(tmp: Path) -> Path:
    app = tmp / "repo" / "apps" / "gpu"
    app.mkdir(parents=True)
    shutil.copyfile(EXAMPLES / "llm-server.yaml", app / "llm-server.yaml")
    (app / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    return app


def _generate(app: Path, *extra: str, **env: str) -> tuple[int, str, str]:
    spec = PLUGIN["spec"]["generate"]
    command = [*spec["command"], *spec.get("args", []), *extra]
    cmp_env = {"ARGOCD_APP_NAME": "gpu", "ARGOCD_APP_NAMESPACE": "ml-serving",
               "ARGOCD_APP_SOURCE_PATH": "apps/gpu"}
    done = run(command, app, host_env(**{**cmp_env, **env}))
    return done.returncode, done.stdout, done.stderr


def test_the_parameters_known_are_those_the_plugin_announces() -> None:
    announced = {p["name"]: p["collectionType"] for p in PLUGIN["spec"]["parameters"]["static"]}
    assert announced == PARAMETERS
    assert {e["name"] for e in PLUGIN["spec"].get("env", [])} <= set(ENV)


@pytest.mark.parametrize(("env", "origin"), [
    ({"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "polices", "array": ["rollback"]}])},
     "ARGOCD_APP_PARAMETERS"),
    ({"PARAM_POLICES_0": "rollback"}, "PARAM_POLICES_0"),
    ({"ARGOCD_ENV_TFPOLICY_POLICES": "rollback"}, "ARGOCD_ENV_TFPOLICY_POLICES"),
])
def test_a_misspelled_parameter_is_refused_with_the_name_it_is_closest_to(
        tmp_path: Path, env: dict[str, str], origin: str) -> None:
    code, out, err = _generate(_app(tmp_path), **env)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"{origin}: error: unknown plugin "), err
    assert "did you mean " in err and ("policies?" in err or "TFPOLICY_POLICIES?" in err)


def test_parameters_spelled_right_still_render(tmp_path: Path) -> None:
    params = [{"name": "policies", "array": ["takeover-50"]},
              {"name": "helm-parameters", "map": {"a": "b"}}]
    code, out, err = _generate(_app(tmp_path), ARGOCD_APP_PARAMETERS=json.dumps(params),
                               ARGOCD_ENV_OTHER_TOOL="x", ARGOCD_ENV_TFPOLICY_STAGE="takeover")
    assert code == 0 and "tensor-fusion.ai/enabled-replicas" in out, err
    code, out, err = _generate(_app(tmp_path / "b"), PARAM_POLICIES_0="takeover",
                               PARAM_HELM_PARAMETERS_image_tag="v1", PARAM_STAGE="takeover")
    assert code == 0 and "tensor-fusion.ai/enabled" in out, err


def test_a_file_holding_no_kubernetes_object_is_skipped_and_explained(tmp_path: Path) -> None:
    app = _app(tmp_path)
    (app / "docker-compose.yaml").write_text(COMPOSE)
    (app / "notes.yaml").write_text("owner: ml-team\nkind-of: note\n")
    code, out, err = _generate(app)
    assert code == 0, err
    kinds = [d["kind"] for d in yaml.safe_load_all(out) if d]
    assert "services" not in out and "owner:" not in out
    assert len(kinds) == 4 and "Deployment" in kinds  # llm-server.yaml's objects only
    assert err == ""
    code, explained, err = _generate(app, "--explain")
    assert code == 0 and explained == out
    skipped = sorted(line for line in err.splitlines() if "skipped" in line)
    assert skipped == [f"tfpolicy: skipped {name}: no document has both apiVersion and kind: "
                       "not a Kubernetes manifest" for name in ("docker-compose.yaml",
                                                                "notes.yaml")]


def test_a_broken_manifest_is_still_an_error(tmp_path: Path) -> None:
    app = _app(tmp_path)
    (app / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nspec: {containers: [\n")
    code, out, err = _generate(app)
    assert code == 2 and out == "" and err.startswith("broken.yaml:"), err
