"""The images as people run them, built by ``make test-images`` with podman: the KRM function
under kpt (``KPT_FN_RUNTIME=podman``), and the Argo CD sidecar's plugin under the sidecar's
constraints (user 999, read-only root filesystem, ``/tmp`` the only writable place).

Each run in an image is compared with the same run of this checkout's ``tfpolicy``: an image
must behave exactly as the package it was built from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from treebuild import once_this_run

from tfpolicy import git_commit

pytestmark = [pytest.mark.images]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = ROOT / "examples" / "manifests"
KRM = "localhost/tfpolicy-krm:test"
CMP = "localhost/tfpolicy-cmp:test"
ENGINE_CONF = ROOT / ".ci" / "containers.conf"
# Where the cmp-server unpacks a repository, and the app's folder inside it (hosts.md §3.3).
APP_DIR = "/tmp/_cmp_server/repo/apps/gpu"
ARGOCD_ENV = {"ARGOCD_APP_NAME": "gpu", "ARGOCD_APP_NAMESPACE": "ml-serving",
              "ARGOCD_APP_PROJECT_NAME": "default", "ARGOCD_APP_SOURCE_PATH": "apps/gpu",
              "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/ml.git",
              "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
              "ARGOCD_APP_SOURCE_TARGET_REVISION": "main", "KUBE_VERSION": "1.32.4"}
POLICY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: canary}\n"
          "spec: {stage: takeover, enabledReplicas: 1}\n")


def _run(args: list[str], env: dict[str, str], cwd: Path = ROOT,
         timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, text=True, capture_output=True,
                          timeout=timeout, check=False)


@pytest.fixture(scope="session")
def engine() -> dict[str, str]:
    """The environment podman runs in, once both images are built from this checkout."""
    if shutil.which("podman") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("podman is not installed; .ci/run installs it")
        pytest.skip("podman is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    # This machine's engine settings when the caller gave none: crun cannot run here, and
    # the default open-files limit is above what the sandbox allows (containers.md).
    if "CONTAINERS_CONF" not in env and shutil.which("runc") is not None:
        env["CONTAINERS_CONF"] = str(ENGINE_CONF)
    # Built once per test run, by whichever worker comes first, while no other build of
    # this tree runs (treebuild.py): two builds into one context at once mix their files.
    once_this_run("images", lambda: _build_images(env))
    return env


def _build_images(env: dict[str, str]) -> None:
    done = _run(["make", "--no-print-directory", "test-images", f"VENV={sys.prefix}"], env,
                timeout=1800)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def _package(tmp: Path, name: str, kptfile_function: str) -> Path:
    pkg = tmp / name
    pkg.mkdir(parents=True)
    for example in ("llm-server.yaml", "monitoring.yaml"):
        shutil.copyfile(EXAMPLES / example, pkg / example)
    (pkg / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\npipeline:\n"
        f"  mutators:\n  - {kptfile_function}\n    configMap:\n      policies: takeover-25\n")
    return pkg


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _deployment(text: str) -> dict[str, object]:
    return next(d for d in yaml.safe_load_all(text) if d and d["kind"] == "Deployment")


def _annotations(text: str) -> dict[str, str]:
    template = _deployment(text)["spec"]["template"]  # type: ignore[index]
    return template["metadata"]["annotations"]  # type: ignore[no-any-return]


def test_the_image_carries_the_commit_it_was_built_from(engine: dict[str, str]) -> None:
    done = _run(["podman", "run", "--rm", "--network", "none", "--entrypoint", "tfpolicy", KRM,
                 "--version"], engine)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"tfpolicy, version 0.1.0 (commit {git_commit(ROOT)})\n"
    user = _run(["podman", "image", "inspect", "--format", "{{.Config.User}}", KRM], engine)
    assert user.stdout.strip() == "65534:65534"  # the functions spec's nobody


def test_kpt_fn_render_runs_the_image_as_a_kptfile_mutator(engine: dict[str, str],
                                                            tmp_path: Path) -> None:
    image_pkg = _package(tmp_path, "image", f"image: {KRM}")
    exec_pkg = _package(tmp_path, "exec", f'exec: "{BIN / "tfpolicy"} krm"')
    env = {**engine, "KPT_FN_RUNTIME": "podman"}
    done = _run(["kpt", "fn", "render", str(image_pkg), "--image-pull-policy", "never"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'[PASS] "{KRM}"' in done.stdout + done.stderr
    rendered = (image_pkg / "llm-server.yaml").read_text()
    assert rendered != (EXAMPLES / "llm-server.yaml").read_text()
    # takeover-25 of 4 replicas: one on TensorFusion, the pod template labelled for it
    assert _annotations(rendered)["tensor-fusion.ai/enabled-replicas"] == "1"
    done = _run(["kpt", "fn", "render", str(exec_pkg), "--allow-exec"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    image_files, exec_files = _files(image_pkg), _files(exec_pkg)
    assert image_files.pop("Kptfile") != exec_files.pop("Kptfile")
    assert image_files == exec_files


def test_kpt_fn_eval_image_with_a_function_config(engine: dict[str, str], tmp_path: Path) -> None:
    pkg, here = tmp_path / "pkg", tmp_path / "here"
    for folder in (pkg, here):
        folder.mkdir()
        shutil.copyfile(EXAMPLES / "llm-server.yaml", folder / "llm-server.yaml")
    config = tmp_path / "policy.yaml"
    config.write_text(POLICY)
    env = {**engine, "KPT_FN_RUNTIME": "podman"}
    done = _run(["kpt", "fn", "eval", str(pkg), "--image", KRM, "--image-pull-policy", "never",
                 "--fn-config", str(config)], env)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (pkg / "llm-server.yaml").read_text()
    assert _annotations(text)["tensor-fusion.ai/enabled-replicas"] == "1"
    local = _run(["kpt", "fn", "eval", str(here), "--exec", f"{BIN / 'tfpolicy'} krm",
                  "--fn-config", str(config)], env)
    assert local.returncode == 0, local.stdout + local.stderr
    assert text == (here / "llm-server.yaml").read_text()
    # A broken function config: the function fails, kpt stops and writes nothing.
    config.write_text(POLICY.replace("takeover", "sideways"))
    done = _run(["kpt", "fn", "eval", str(pkg), "--image", KRM, "--image-pull-policy", "never",
                 "--fn-config", str(config)], env)
    assert done.returncode != 0 and "sideways" in done.stdout + done.stderr
    assert (pkg / "llm-server.yaml").read_text() == text


def _app(tmp: Path, source: Path, config: str) -> Path:
    """An app folder as the cmp-server unpacks it: files 0644, folders 0755."""
    app = tmp / "apps" / "gpu"
    shutil.copytree(source, app)
    (app / ".tfpolicy.yaml").write_text(config)
    for path in [app, *app.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return app


@pytest.fixture(scope="session")
def plugin(engine: dict[str, str]) -> dict[str, object]:
    """The plugin.yaml baked into the sidecar image, read from the image itself."""
    done = _run(["podman", "run", "--rm", "--network", "none", "--entrypoint", "cat", CMP,
                 "/home/argocd/cmp-server/config/plugin.yaml"], engine)
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def generate(engine: dict[str, str], plugin: dict[str, object]) -> list[str]:
    """The command the plugin's generate step runs."""
    spec = plugin["spec"]["generate"]  # type: ignore[index]
    return [*spec["command"], *spec.get("args", [])]


def _generate(engine: dict[str, str], command: list[str], app: Path,
              **env: str) -> subprocess.CompletedProcess[str]:
    """The plugin's generate command, run the way the sidecar runs it (hosts.md §3.4)."""
    settings = [f"--env={k}={v}" for k, v in sorted({**ARGOCD_ENV, **env}.items())]
    return _run(["podman", "run", "--rm", "--network", "none", "--user", "999",
                 "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp:rw,mode=1777",
                 "--cap-drop", "all", "--security-opt", "no-new-privileges",
                 "--volume", f"{app}:{APP_DIR}:ro", "--workdir", APP_DIR, *settings,
                 "--entrypoint", command[0], CMP, *command[1:]], engine)


def _generate_here(engine: dict[str, str], command: list[str], app: Path,
                   **env: str) -> subprocess.CompletedProcess[str]:
    """The same command by this checkout's tfpolicy, for the expected output."""
    return _run([str(BIN / command[0]), *command[1:]], {**engine, **ARGOCD_ENV, **env}, cwd=app)


def test_sidecar_image_is_user_999_with_the_repository_plugin_yaml(
        engine: dict[str, str], plugin: dict[str, object]) -> None:
    assert plugin == yaml.safe_load((ROOT / "plugins/argocd/plugin.yaml").read_text())
    user = _run(["podman", "image", "inspect", "--format", "{{.Config.User}}", CMP], engine)
    assert user.stdout.strip() == "999"


def test_sidecar_generates_a_kustomize_app(engine: dict[str, str], generate: list[str],
                                       tmp_path: Path) -> None:
    app = _app(tmp_path, ROOT / "plugins" / "kustomize" / "example" / "base",
               "policies: [rollback]\n")
    done = _generate(engine, generate, app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover-50")
    assert done.returncode == 0, done.stderr
    meta = _deployment(done.stdout)["spec"]["template"]["metadata"]  # type: ignore[index]
    assert meta["annotations"]["tensor-fusion.ai/enabled-replicas"] == "2"  # 50 % of 4
    assert _deployment(done.stdout)["metadata"]["namespace"] == "ml-serving"  # type: ignore[index]
    here = _generate_here(engine, generate, app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover-50")
    assert (done.returncode, done.stdout) == (here.returncode, here.stdout)
    params = json.dumps([{"name": "stage", "string": "rollback"}])
    done = _generate(engine, generate, app, ARGOCD_ENV_TFPOLICY_POLICIES="takeover",
                     ARGOCD_APP_PARAMETERS=params)
    assert done.returncode == 0, done.stderr
    assert "tensor-fusion.ai" not in done.stdout and "nvidia.com/gpu" in done.stdout


def test_sidecar_generates_a_plain_folder_app(engine: dict[str, str], generate: list[str],
                                              tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("llm-server.yaml", "monitoring.yaml"):
        shutil.copyfile(EXAMPLES / name, source / name)
    (source / "gpu-policy.yaml").write_text(POLICY)
    app = _app(tmp_path, source, "policies: [gpu-policy.yaml]\n")
    done = _generate(engine, generate, app)
    assert done.returncode == 0, done.stderr
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    assert len(docs) == 5 and "MigrationPolicy" not in {d["kind"] for d in docs}
    assert _annotations(done.stdout)["tensor-fusion.ai/enabled-replicas"] == "1"
    here = _generate_here(engine, generate, app)
    assert (done.returncode, done.stdout) == (here.returncode, here.stdout)


def test_sidecar_without_helm_refuses_a_chart_in_one_line(engine: dict[str, str],
                                                          generate: list[str],
                                                          tmp_path: Path) -> None:
    """No helm package exists for these machines, so the test image is built without it."""
    source = tmp_path / "chart"
    (source / "templates").mkdir(parents=True)
    (source / "Chart.yaml").write_text("apiVersion: v2\nname: gpu\nversion: 0.1.0\n")
    app = _app(tmp_path, source, "policies: [takeover]\n")
    done = _generate(engine, generate, app)
    assert done.returncode != 0 and done.stdout == ""
    assert "helm is not installed" in done.stderr and done.stderr.count("\n") == 1
