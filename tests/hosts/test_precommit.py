"""The hooks of ``.pre-commit-hooks.yaml`` under the real ``pre-commit try-repo`` (hosts.md §4).

The hook repository and pre-commit's cache are the session's (``conftest.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hostlib import BIN, EXAMPLES, ROOT, git, run, snapshot

HOOKS = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
MANIFESTS = ("llm-server.yaml", "batch-jobs.yaml", "opted-out.yaml", "monitoring.yaml")


def _git(cwd: Path, *args: str) -> None:
    git(cwd, *args)


def _manifest_repo(tmp: Path, *extra: tuple[str, str]) -> Path:
    repo = tmp / "manifests"
    (repo / "apps").mkdir(parents=True)
    for name in MANIFESTS:
        shutil.copyfile(EXAMPLES / name, repo / "apps" / name)
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (repo / "chart" / "templates" / "deployment.yaml").write_text(
        "spec:\n  replicas: {{ .Values.replicas }}\n  gpu: nvidia.com/gpu\n")
    (repo / "kustomization.yaml").write_text("resources: [apps/llm-server.yaml]\n")
    (repo / ".tfpolicy.yaml").write_text("policies: [takeover]\n")
    for name, text in extra:
        (repo / name).write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "manifests")
    return repo


def _try(hook_repo: Path, repo: Path, env: dict[str, str], hook: str) -> tuple[int, str]:
    done = run([str(BIN / "pre-commit"), "try-repo", str(hook_repo), hook, "--all-files"],
               repo, env)
    return done.returncode, done.stdout + done.stderr


def test_hook_definitions_need_no_args() -> None:
    assert set(HOOKS) == {"tfpolicy-fix", "tfpolicy-check", "tfpolicy-validate"}
    for hook in HOOKS.values():
        assert hook["language"] == "python" and hook["require_serial"] is True
        assert "args" not in hook
        assert "exclude" not in hook  # a user's exclude: would replace it; the tool decides
    assert HOOKS["tfpolicy-fix"]["types_or"] == ["yaml", "json"]


def test_fix_then_check(hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _manifest_repo(tmp_path)
    before = snapshot(repo)
    code, out = _try(hook_repo, repo, env, "tfpolicy-check")
    assert code == 1, out
    assert "would" in out and snapshot(repo) == before  # check never writes
    code, out = _try(hook_repo, repo, env, "tfpolicy-fix")
    assert code == 1, out
    assert "Fixing apps/llm-server.yaml" in out and "Fixing apps/batch-jobs.yaml" in out
    after = snapshot(repo)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"apps/llm-server.yaml", "apps/batch-jobs.yaml"}
    text = after["apps/llm-server.yaml"].decode()
    assert text.startswith("# Rendered with:") and "tensor-fusion.ai/enabled" in text
    assert text.count("#") == before["apps/llm-server.yaml"].decode().count("#")
    code, out = _try(hook_repo, repo, env, "tfpolicy-fix")
    assert code == 0, out
    assert snapshot(repo) == after
    code, out = _try(hook_repo, repo, env, "tfpolicy-check")
    assert code == 0, out


def test_helm_template_syntax_is_reported(hook_repo: Path, env: dict[str, str],
                                         tmp_path: Path) -> None:
    """Outside templates/ (which the hooks exclude), unrendered Helm is one located error."""
    bad = ("values-gpu.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}"
           "\nspec:\n  containers:\n  - name: a\n    resources: {limits: {nvidia.com/gpu: 1}}\n")
    repo = _manifest_repo(tmp_path, bad)
    before = snapshot(repo)
    code, out = _try(hook_repo, repo, env, "tfpolicy-fix")
    assert code != 0
    errors = [line for line in out.splitlines() if "error:" in line]
    assert errors == [line for line in errors if line.startswith("values-gpu.yaml:4:")]
    assert len(errors) == 1 and "Helm template" in errors[0] and "Traceback" not in out
    assert snapshot(repo) == before


def test_validate(hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    policy = ("gpu-policy.yaml", "apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\n"
              "metadata: {name: p}\nspec: {stage: takeover}\n")
    repo = _manifest_repo(tmp_path, policy)
    (repo / ".tfpolicy.yaml").write_text("policies: [gpu-policy.yaml, rollback]\n")
    _git(repo, "commit", "-qam", "use the policy file")
    code, out = _try(hook_repo, repo, env, "tfpolicy-validate")
    assert code == 0, out
    (repo / "gpu-policy.yaml").write_text(policy[1].replace("takeover", "sideways"))
    _git(repo, "commit", "-qam", "break it")
    code, out = _try(hook_repo, repo, env, "tfpolicy-validate")
    assert code == 1 and "exit code: 2" in out, out  # pre-commit's own exit is 1
    assert "gpu-policy.yaml:4:" in out and "sideways" in out


PLAYBOOK = "- hosts: all\n  tasks:\n  - name: gpu driver\n    apt: {name: nvidia-driver}\n"
COMPOSE = ("x-common: &common\n  restart: always\nservices:\n  web:\n    <<: *common\n"
           "    image: vllm/vllm-openai\n    deploy: {resources: {reservations: {devices: "
           "[{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n")
TSCONFIG = '{\n  // comments are fine in a tsconfig\n  "compilerOptions": {"strict": true},\n}\n'


def _monorepo(tmp: Path) -> Path:
    """A playbook, a compose file, a tsconfig, a chart, and two apps with their own config."""
    repo = tmp / "mono"
    files = {
        "ansible/site.yaml": PLAYBOOK, "docker-compose.yaml": COMPOSE, "web/tsconfig.json": TSCONFIG,
        "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "chart/templates/deployment.yaml": "spec:\n  replicas: {{ .Values.replicas }}\n"
                                           "  gpu: nvidia.com/gpu\n",
        "apps/serving/.tfpolicy.yaml": "policies: [takeover]\n",
        "apps/training/.tfpolicy.yaml": "policies: [rollback]\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    shutil.copyfile(EXAMPLES / "llm-server.yaml", repo / "apps/serving/llm-server.yaml")
    shutil.copyfile(EXAMPLES / "batch-jobs.yaml", repo / "apps/training/batch-jobs.yaml")
    shutil.copyfile(EXAMPLES / "llm-server.yaml", repo / "unowned-gpu.yaml")  # no config above
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "monorepo")
    return repo


def test_mixed_repository_with_per_folder_config(hook_repo: Path, env: dict[str, str],
                                                 tmp_path: Path) -> None:
    repo = _monorepo(tmp_path)
    before = snapshot(repo)
    code, out = _try(hook_repo, repo, env, "tfpolicy-check")
    assert code == 1 and "error" not in out and "Traceback" not in out, out
    assert "apps/serving/llm-server.yaml:" in out and "(takeover)" in out
    assert "batch-jobs" not in out and "unowned-gpu" not in out  # rollback: nothing to do
    assert snapshot(repo) == before
    code, out = _try(hook_repo, repo, env, "tfpolicy-fix")
    assert code == 1 and "Fixing apps/serving/llm-server.yaml" in out, out
    after = snapshot(repo)
    assert {n for n in before if before[n] != after[n]} == {"apps/serving/llm-server.yaml"}
    code, out = _try(hook_repo, repo, env, "tfpolicy-check")
    assert code == 0, out


def test_broken_manifest_in_mixed_repository_is_still_an_error(
        hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _monorepo(tmp_path)
    (repo / "apps/serving/broken.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n"
        "    resources: {limits: {nvidia.com/gpu: 1}}\n    image: 'x\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "broken")
    before = snapshot(repo)
    code, out = _try(hook_repo, repo, env, "tfpolicy-fix")
    assert code == 1 and "exit code: 2" in out, out
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith("apps/serving/broken.yaml:"), out
    assert snapshot(repo) == before


def test_no_config_anywhere_checks_nothing(hook_repo: Path, env: dict[str, str],
                                          tmp_path: Path) -> None:
    repo = _monorepo(tmp_path)
    for app in ("serving", "training"):
        (repo / "apps" / app / ".tfpolicy.yaml").unlink()
    _git(repo, "commit", "-qam", "no config")
    code, out = _try(hook_repo, repo, env, "tfpolicy-check")
    assert code == 0, out


def test_validate_finds_every_migration_policy(hook_repo: Path, env: dict[str, str],
                                               tmp_path: Path) -> None:
    """A policy no config lists, named migration.yaml as the kustomize/kpt examples do."""
    repo = _monorepo(tmp_path)
    policy = ROOT / "plugins/kustomize/example/krm/migration.yaml"
    (repo / "overlays").mkdir()
    (repo / "overlays/migration.yaml").write_text(policy.read_text())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "policy")
    code, out = _try(hook_repo, repo, env, "tfpolicy-validate")
    assert code == 0, out
    (repo / "overlays/migration.yaml").write_text(
        policy.read_text().replace("stage: takeover", "stage: takover"))
    _git(repo, "commit", "-qam", "break it")
    code, out = _try(hook_repo, repo, env, "tfpolicy-validate")
    assert code == 1 and "exit code: 2" in out, out
    assert "overlays/migration.yaml:12:" in out and "takover" in out


def test_the_config_init_writes_runs_under_pre_commit(env: dict[str, str],
                                                    tmp_path: Path) -> None:
    """``tfpolicy init``'s ``repo: local`` hooks, run by the real ``pre-commit run``."""
    repo = tmp_path / "manifests"
    (repo / "apps").mkdir(parents=True)
    shutil.copyfile(EXAMPLES / "llm-server.yaml", repo / "apps" / "llm-server.yaml")
    _git(repo, "init", "-q")
    assert run([str(BIN / "tfpolicy"), "init", "."], repo, env).returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "manifests")
    before = (repo / "apps" / "llm-server.yaml").read_text()
    first = run([str(BIN / "pre-commit"), "run", "--all-files"], repo, env)
    out = first.stdout + first.stderr
    assert first.returncode == 1 and "Fixing apps/llm-server.yaml" in out, out
    after = (repo / "apps" / "llm-server.yaml").read_text()
    assert after != before and "tensor-fusion.ai/enabled" in after
    again = run([str(BIN / "pre-commit"), "run", "--all-files"], repo, env)
    assert again.returncode == 0, again.stdout + again.stderr
