"""Real files through the hosts: ``tfpolicy krm`` on the ResourceList kpt builds, ``kpt fn
eval --exec``, and the kustomize legacy exec plugin under ``kubectl kustomize``.

kpt and kustomize write the files again themselves (kustomize drops every comment and
sorts keys; kpt moves some comments and indents), so their output is compared with the
same host running a function that echoes its input: the only difference must be the
planned keys, every comment kept once against its line. kyaml writes a blank line
after a comment that ends a mapping when a key follows it, as the new label does
there: blank lines are the only other lines allowed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.comments.keep import FILES, GPU_LINE, check_kept
from tests.hosts.hostlib import ROOT, TFPOLICY, host_env, need, run

POLICIES = {"takeover-25": None, "rightsize-example": GPU_LINE}
_ECHO = "#!/bin/sh\nexec cat\n"
_CONFIG = ("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
           "    name: function-input\n  data:\n    policies: {}\n")


def _package(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for f in FILES:
        shutil.copyfile(f, folder / f.name)
    return folder


def _echo(tmp: Path, name: str) -> Path:
    script = tmp / name
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(_ECHO)
    script.chmod(0o755)
    return script


def _kpt_eval(pkg: Path, function: str, policy: str) -> dict[str, str]:
    done = run([need("kpt"), "fn", "eval", str(pkg), "--exec", function, "--",
                f"policies={policy}"], pkg.parent)
    assert done.returncode == 0, done.stderr
    return {f.name: (pkg / f.name).read_text() for f in FILES}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_kpt_fn_eval_adds_the_keys_and_keeps_every_comment(tmp_path: Path, policy: str) -> None:
    echo = str(_echo(tmp_path, "echo.sh"))
    echoed = _kpt_eval(_package(tmp_path / "echo"), echo, policy)
    migrated = _kpt_eval(_package(tmp_path / "tfpolicy"), f"{TFPOLICY} krm", policy)
    for f in FILES:
        assert check_kept(echoed[f.name], migrated[f.name], removable=POLICIES[policy],
                          blank_ok=True), f.name


def test_kpt_rightsize_then_rollback_gives_kpts_own_bytes_back(tmp_path: Path) -> None:
    echoed = _kpt_eval(_package(tmp_path / "echo"), str(_echo(tmp_path, "echo.sh")), "rollback")
    pkg = _package(tmp_path / "tfpolicy")
    _kpt_eval(pkg, f"{TFPOLICY} krm", "rightsize-example")
    assert _kpt_eval(pkg, f"{TFPOLICY} krm", "rollback") == echoed


def _resource_list(tmp: Path) -> str:
    """The ResourceList kpt hands a function for the package of every file."""
    done = run([need("kpt"), "fn", "source", str(_package(tmp / "pkg"))], tmp)
    assert done.returncode == 0, done.stderr
    assert "functionConfig:" not in done.stdout
    return done.stdout


def _krm(given: str, policy: str, cwd: Path) -> str:
    done = run([str(TFPOLICY), "krm"], cwd, stdin=given + _CONFIG.format(policy))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.split("functionConfig:\n")[0]  # the items (then the results, if any)


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_krm_on_the_resource_list_adds_only_the_keys(tmp_path: Path, policy: str) -> None:
    given = _resource_list(tmp_path)
    assert check_kept(given, _krm(given, policy, tmp_path), removable=POLICIES[policy])


def test_krm_rightsize_then_rollback_gives_the_items_back_byte_for_byte(tmp_path: Path) -> None:
    given = _resource_list(tmp_path)
    staged = _krm(given, "rightsize-example", tmp_path)
    assert _krm(staged, "rollback", tmp_path) == given


def _kustomize(app: Path, home: Path) -> str:
    env = host_env(KUSTOMIZE_PLUGIN_HOME=str(home), TFPOLICY=str(TFPOLICY))
    done = run([need("kubectl"), "kustomize", "--enable-alpha-plugins", "."], app, env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_kubectl_kustomize_plugin_adds_only_the_keys(tmp_path: Path, policy: str) -> None:
    echo_home = tmp_path / "echo-plugins"
    _echo(echo_home / "tfpolicy.dev/v1alpha1/migrationpolicy", "MigrationPolicy")
    for f in FILES:  # one app each: two of them name the same Deployment
        app = tmp_path / f.stem
        app.mkdir()
        shutil.copyfile(f, app / f.name)
        shutil.copyfile(ROOT / "policies" / f"{policy}.yaml", app / "migration.yaml")
        (app / "kustomization.yaml").write_text(
            f"resources:\n- {f.name}\ntransformers:\n- migration.yaml\n")
        echoed = _kustomize(app, echo_home)
        migrated = _kustomize(app, ROOT / "plugins" / "kustomize")
        assert check_kept(echoed, migrated, removable=POLICIES[policy]), f.name
