"""Advancing the ladder in git: a commit changing only the config, or a policy file it names,
goes through the hooks of ``.pre-commit-hooks.yaml`` as ``git commit`` runs them.

Each scratch repository installs the hooks with ``pre-commit install`` from the
session's hook repository (``conftest.py``) and commits for real.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hostlib import TFPOLICY, git, hooked_repo, run, snapshot

GPU = ("llm-server.yaml", "batch-jobs.yaml")


def _commit(repo: Path, env: dict[str, str], message: str) -> tuple[int, str]:
    git(repo, "add", "-A")
    done = run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m",
                message], repo, env)
    return done.returncode, done.stdout + done.stderr


def _app(stage: str) -> dict[str, str]:
    """One app under a config at ``stage``, a second app with its own config, a manifest
    no config governs, and files that are not manifests."""
    return {
        "apps/serving/.tfpolicy.yaml": f"policies: [{stage}]\n",
        **{f"apps/serving/{name}": f"@{name}" for name in GPU},
        "apps/serving/nested/inference.yaml": "@mig-inference.yaml",
        "apps/training/.tfpolicy.yaml": "policies: [takeover-1]\n",
        "apps/training/trainer.yaml": "@trainer-statefulset.yaml",
        "unowned.yaml": "@llm-server.yaml",
        "apps/serving/compose.yaml": "services: {web: {image: vllm/vllm-openai}}\n",
    }


def _behind(repo: Path) -> set[str]:
    """The manifests under apps/serving that are not at their config's stage, as
    ``tfpolicy check`` names them."""
    done = subprocess.run([str(TFPOLICY), "check", "apps/serving"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    return _would(done.stdout)


def _would(out: str) -> set[str]:
    """The files a check output says fix would change."""
    return {line.split(":")[0] for line in out.splitlines() if ": would " in line}


def _at_stage(tmp: Path, hook_repo: Path, env: dict[str, str], hooks: tuple[str, ...],
              args: str = "") -> Path:
    repo = hooked_repo(tmp, hook_repo, env, hooks, _app("takeover-1"), args)
    done = subprocess.run([str(TFPOLICY), "fix", "apps/serving", "apps/training"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    git(repo, "commit", "-qam", "at takeover-1", "--no-verify")
    assert _behind(repo) == set()
    return repo


def _advance(repo: Path) -> set[str]:
    """The config of apps/serving moved from takeover-1 to takeover-50; what that leaves
    behind (before any hook ran), which must be what the hooks fix or name."""
    (repo / "apps/serving/.tfpolicy.yaml").write_text("policies: [takeover-50]\n")
    behind = _behind(repo)
    assert behind >= {"apps/serving/llm-server.yaml", "apps/serving/nested/inference.yaml"}
    return behind


def test_changing_the_stage_in_the_config_fixes_every_manifest_it_governs(
        hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _at_stage(tmp_path, hook_repo, env, ("tfpolicy-fix",))
    before = snapshot(repo)
    behind = _advance(repo)
    code, out = _commit(repo, env, "serving: half the replicas")
    assert code == 1 and "files were modified by this hook" in out, out
    assert "error" not in out.lower() and "Traceback" not in out
    fixed = {line.removeprefix("Fixing ") for line in out.splitlines()
             if line.startswith("Fixing ")}
    assert fixed == behind, out
    after = snapshot(repo)
    changed = {n for n in before if before[n] != after[n]}
    assert changed == {*behind, "apps/serving/.tfpolicy.yaml"}  # not training, not unowned
    assert _behind(repo) == set()
    code, out = _commit(repo, env, "serving: half the replicas")  # the fixed files staged
    assert code == 0, out
    assert git(repo, "status", "--porcelain") == ""


def test_check_names_every_manifest_behind_the_new_stage(
        hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _at_stage(tmp_path, hook_repo, env, ("tfpolicy-check",))
    behind = _advance(repo)
    before = snapshot(repo)
    code, out = _commit(repo, env, "serving: half the replicas")
    assert code == 1 and "(takeover-50)" in out, out
    assert _would(out) == behind, out
    assert snapshot(repo) == before  # check writes nothing


def test_changing_a_policy_file_a_config_names(hook_repo: Path, env: dict[str, str],
                                                tmp_path: Path) -> None:
    policy = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
              "metadata: {name: serving}\nspec: {stage: takeover, enabledReplicas: 1}\n")
    files = {**_app("takeover-1"), "policies/serving.yaml": policy,
             "apps/serving/.tfpolicy.yaml": "policies: [../../policies/serving.yaml]\n"}
    repo = hooked_repo(tmp_path, hook_repo, env, ("tfpolicy-fix",), files)
    subprocess.run([str(TFPOLICY), "fix", "apps/serving"], cwd=repo, check=False,
                   capture_output=True)
    git(repo, "commit", "-qam", "at one replica", "--no-verify")
    (repo / "policies/serving.yaml").write_text(policy.replace("enabledReplicas: 1",
                                                               "enabledReplicas: 2"))
    behind = _behind(repo)
    assert "apps/serving/llm-server.yaml" in behind
    code, out = _commit(repo, env, "serving: two replicas")
    assert code == 1 and "files were modified by this hook" in out, out
    fixed = {line.removeprefix("Fixing ") for line in out.splitlines()
             if line.startswith("Fixing ")}
    assert fixed == behind, out
    assert 'enabled-replicas: "2"' in (repo / "apps/serving/llm-server.yaml").read_text()


def test_file_names_are_never_options(hook_repo: Path, env: dict[str, str],
                                      tmp_path: Path) -> None:
    """``-pfoo.yaml`` would be ``-p foo.yaml``, ``--policy=x.yaml`` a policy: both are files."""
    names = ("-pfoo.yaml", "--policy=x.yaml", "apps/-n/gpu.yaml")
    files = {".tfpolicy.yaml": "policies: [takeover]\n",
             **{name: "@llm-server.yaml" for name in names}}
    repo = hooked_repo(tmp_path, hook_repo, env, ("tfpolicy-fix",), files)
    for name in names:
        (repo / name).write_text((repo / name).read_text() + "\n")
    code, out = _commit(repo, env, "touch")
    assert code == 1 and "error" not in out.lower(), out
    for name in names:
        assert f"Fixing {name}" in out, out
        assert "tensor-fusion.ai/enabled" in (repo / name).read_text()


def test_options_in_args_end_with_their_own_separator(hook_repo: Path, env: dict[str, str],
                                                      tmp_path: Path) -> None:
    files = {".tfpolicy.yaml": "policies: [takeover]\n", "-pfoo.yaml": "@llm-server.yaml"}
    repo = hooked_repo(tmp_path, hook_repo, env, ("tfpolicy-fix",), files,
                 args="\n        args: [-p, takeover-50, --]")
    (repo / "-pfoo.yaml").write_text((repo / "-pfoo.yaml").read_text() + "\n")
    code, out = _commit(repo, env, "half")
    assert code == 1 and "Fixing -pfoo.yaml" in out, out
    assert 'enabled-replicas: "2"' in (repo / "-pfoo.yaml").read_text()  # half of 4
    (repo / ".pre-commit-config.yaml").write_text(
        (repo / ".pre-commit-config.yaml").read_text().replace(", --]", "]"))
    code, out = _commit(repo, env, "no separator")
    assert code == 1 and "'-p' is no file: options in a hook's args: must end with '--'" \
        in out, out
