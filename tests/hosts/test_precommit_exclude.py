"""A user's excludes hold (docs/hosts.md, "Excluding files"): the pre-commit hooks' own
``exclude:`` for the manifests a hook adds, run by the real ``pre-commit run``, and a
``.tfpolicy.yaml`` ``exclude:`` for every command that walks a tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hostlib import BIN, EXAMPLES, ROOT, git, run, tfpolicy

BROKEN = "{{ not: yaml\n"
HOOKS = """\
repos:
  - repo: local
    hooks:
      - id: tfpolicy-fix
        name: tfpolicy fix
        entry: tfpolicy fix --hook --
        language: system
        types_or: [yaml, json]
        require_serial: true{exclude}
      - id: tfpolicy-check
        name: tfpolicy check
        entry: tfpolicy check --hook --
        language: system
        types_or: [yaml, json]
        require_serial: true{exclude}
"""


def _monorepo(tmp: Path, hook_exclude: str, config: str) -> Path:
    """apps/ to migrate, a vendored file that is no YAML, a generated one neither."""
    repo = tmp / "mono"
    for folder in ("apps", "vendor/upstream", "generated"):
        (repo / folder).mkdir(parents=True)
    shutil.copyfile(EXAMPLES / "llm-server.yaml", repo / "apps" / "llm-server.yaml")
    (repo / "vendor" / "upstream" / "notes.yaml").write_text(BROKEN)
    (repo / "generated" / "out.yaml").write_text(BROKEN)
    exclude = f"\n        exclude: {hook_exclude}" if hook_exclude else ""
    (repo / ".pre-commit-config.yaml").write_text(HOOKS.format(exclude=exclude))
    (repo / ".tfpolicy.yaml").write_text(config)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "manifests")
    return repo


def _pre_commit(repo: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    done = run([str(BIN / "pre-commit"), "run", *args], repo, env)
    return done.returncode, done.stdout + done.stderr


def test_the_hooks_exclude_and_the_configs_hold_under_pre_commit(
        env: dict[str, str], tmp_path: Path) -> None:
    repo = _monorepo(tmp_path, "^vendor/", "policies: [takeover]\nexclude: [generated]\n")
    code, out = _pre_commit(repo, env, "--all-files")
    assert code == 1 and "Fixing apps/llm-server.yaml" in out, out  # fix changed it
    assert "vendor/" not in out and "generated/" not in out, out
    assert "tensor-fusion.ai/enabled" in (repo / "apps" / "llm-server.yaml").read_text()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "migrated")
    code, out = _pre_commit(repo, env, "--all-files")
    assert code == 0, out
    assert out.count("Passed") == 2, out


def test_an_added_file_in_error_says_how_it_came_and_how_to_leave_it_out(
        env: dict[str, str], tmp_path: Path) -> None:
    """Only the config is passed; the broken file is one the hook added."""
    repo = _monorepo(tmp_path, "", "policies: [takeover]\nexclude: [generated]\n")
    code, out = _pre_commit(repo, env, "tfpolicy-check", "--files", ".tfpolicy.yaml")
    assert code == 1, out
    line = next(x for x in out.splitlines() if x.startswith("vendor/upstream/notes.yaml:1:"))
    assert "pre-commit did not pass this file" in line and ".tfpolicy.yaml governs" in line
    assert "`exclude:` in .tfpolicy.yaml" in line
    assert "the hook's `exclude:` in .pre-commit-config.yaml" in line
    assert "generated/" not in out


def test_a_configs_exclude_holds_for_check_fix_plan_apply(tmp_path: Path) -> None:
    repo = _monorepo(tmp_path, "", "policies: [takeover]\nexclude: [vendor, generated/*.yaml]\n")
    before = (repo / "vendor" / "upstream" / "notes.yaml").read_text()
    done = tfpolicy("check", ".", cwd=repo)
    assert done.returncode == 1 and "apps/llm-server.yaml" in done.stdout, done.stderr
    assert "vendor" not in done.stdout + done.stderr
    done = tfpolicy("plan", "--inventory", str(ROOT / "examples" / "inventory.yaml"), ".",
                    cwd=repo)
    assert done.returncode == 0 and "every step fits" in done.stdout, done.stderr
    done = tfpolicy("apply", ".", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert {d["kind"] for d in yaml.safe_load_all(done.stdout) if d} >= {"Deployment"}
    done = tfpolicy("fix", ".", cwd=repo)
    assert done.returncode == 1 and "apps/llm-server.yaml" in done.stdout + done.stderr
    assert tfpolicy("check", ".", cwd=repo).returncode == 0
    assert (repo / "vendor" / "upstream" / "notes.yaml").read_text() == before


def test_without_the_exclude_the_same_tree_is_refused(tmp_path: Path) -> None:
    """The tree the tests above walk is refused when nothing leaves the files out."""
    repo = _monorepo(tmp_path, "", "policies: [takeover]\n")
    done = tfpolicy("check", ".", cwd=repo)
    assert done.returncode == 2 and "generated/out.yaml:1:" in done.stderr, done.stderr


def test_a_glob_that_leaves_the_folder_is_a_located_error(tmp_path: Path) -> None:
    repo = _monorepo(tmp_path, "", "policies: [takeover]\nexclude:\n  - vendor\n  - ../up\n")
    done = tfpolicy("check", ".", cwd=repo)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.strip().endswith(
        ".tfpolicy.yaml:4:5: error: '../up' is not a glob relative to this folder "
        "(not absolute, no .. part) ($.exclude[1])"), done.stderr
