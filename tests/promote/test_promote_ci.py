"""The scheduled promote jobs of the CI templates (docs/ci/github-promote.yml, the GitLab
ci/gitlab/tfpolicy-promote.gitlab-ci.yml), their own scripts read from the YAML and run in
bash in a clone of a scratch repository, with stand-ins for kubectl, gh and curl: each of
promote's exit codes is handled as docs/ci.md says (advance and stop push one branch and
open a pull or merge request with the summary as its body; wait and done change nothing
and pass; refused fails the job), and the YAML's shape (schedule, permissions, depth)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.promote.ci_harness import ROOT, Scratch, snapshot
from tfpolicy.files.cluster import GITOPS_KINDS, OPERATOR_KINDS, WORKLOAD_KINDS

GITHUB = ROOT / "docs" / "ci" / "github-promote.yml"
GITLAB = ROOT / "ci" / "gitlab" / "tfpolicy-promote.gitlab-ci.yml"
EXITS = ("0", "1", "4", "5", "75")
Run = Callable[[Scratch, Path, str], Any]


def _github(repo: Scratch, cluster: Path, open_pr: str) -> Any:
    workflow = yaml.safe_load(GITHUB.read_text(encoding="utf-8"))
    temp = repo.tmp / "runner"
    temp.mkdir()
    values = {"runner.temp": str(temp), "github.token": "token"}
    env = {**workflow["env"], "TFPOLICY_PATHS": "manifests", "RUNNER_TEMP": str(temp),
           "GITHUB_REF_NAME": "main", "STUB_SNAPSHOT": str(cluster), "STUB_OPEN": open_pr}
    done = None
    for step in workflow["jobs"]["promote"]["steps"]:
        if "run" not in step or step.get("name") == "Install tfpolicy":  # the venv's here
            continue
        step_env = {k: _expand(str(v), values) for k, v in (step.get("env") or {}).items()}
        done = repo.run(_expand(step["run"], values), {**env, **step_env})
        if done.returncode != 0:
            break
    return done


def _expand(text: str, values: dict[str, str]) -> str:
    """GitHub's ``${{ … }}``: the values given; a secret is empty (kubectl is a stand-in)."""
    return re.sub(r"\$\{\{ ([\w.]+) \}\}", lambda m: values.get(m.group(1), ""), text)


def _gitlab(repo: Scratch, cluster: Path, open_mr: str) -> Any:
    template = yaml.safe_load(GITLAB.read_text(encoding="utf-8"))
    job = template["tfpolicy-promote"]
    env = {**template["variables"], **job["variables"], "TFPOLICY_PATHS": "manifests",
           "TFPOLICY_OUT": str(repo.tmp / "out"), "CI_API_V4_URL": "https://gitlab.test/api/v4",
           "CI_PROJECT_ID": "7", "CI_SERVER_HOST": "gitlab.test", "CI_PROJECT_PATH": "ml/gpus",
           "CI_DEFAULT_BRANCH": "main", "TFPOLICY_GITLAB_TOKEN": "token",
           "STUB_SNAPSHOT": str(cluster), "STUB_OPEN": open_mr}
    # The push URL with the job's token is GitLab's; here origin is the scratch remote.
    lines = [line for line in job["script"] if not line.startswith("git remote set-url")]
    return repo.run("\n".join(lines), env)


TEMPLATES = {"github": (_github, "gh", "tfpolicy/promote"),
             "gitlab": (_gitlab, "curl", "tfpolicy/promote")}


def _opened(repo: Scratch, tool: str) -> list[dict[str, Any]]:
    """The pull (gh pr create) or merge (curl POST) requests opened."""
    return [c for c in repo.calls(tool) if c["argv"][:2] == ["pr", "create"]
            or "POST" in c["argv"]]


def _title(call: dict[str, Any]) -> str:
    argv = call["argv"]
    if "--title" in argv:
        return str(argv[argv.index("--title") + 1])
    return next(str(a).removeprefix("title=") for a in argv if str(a).startswith("title="))


@pytest.fixture(params=sorted(TEMPLATES))
def template(request: pytest.FixtureRequest) -> tuple[Run, str, str]:
    return TEMPLATES[request.param]


def test_advance_pushes_the_next_rung_and_opens_a_request(
        tmp_path: Path, template: tuple[Run, str, str]) -> None:
    run, tool, branch = template
    repo = Scratch(tmp_path, "takeover-1", 8)
    done = run(repo, snapshot(tmp_path, "takeover-1-soaked"), "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "promote: takeover-1 (step 01): advance" in done.stdout
    assert repo.pushed(branch) == "policies: [takeover-25]\n"
    assert repo.pushed("main") == "policies: [takeover-1]\n"  # main moves when it is merged
    opened = _opened(repo, tool)
    assert len(opened) == 1
    assert _title(opened[0]) == "GPU migration: takeover-1 to takeover-25, verify said ready"
    assert opened[0]["body"].startswith("## Promote: `takeover-1` → `takeover-25`")
    for workload in ("PyTorchJob/ml-training/resnet-ddp/Worker",  # a kind with no cap
                     "Deployment/ml-serving/llama-8b-vllm"):      # beside one capped
        assert f"| `{workload}` | ready |" in opened[0]["body"]
    asked = [c["argv"] for c in repo.calls("kubectl") if c["argv"][0] == "get"]
    assert [a[1] for a in asked] == [WORKLOAD_KINDS, OPERATOR_KINDS, *GITOPS_KINDS]  # as --live
    assert all(a[2:] == ["-A", "-o", "yaml"] for a in asked)
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_stop_pushes_the_rollback_and_opens_a_request(
        tmp_path: Path, template: tuple[Run, str, str]) -> None:
    run, tool, branch = template
    repo = Scratch(tmp_path, "takeover-1", 8)
    done = run(repo, snapshot(tmp_path, "takeover-1-soaked", crash=True), "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verify said stop: the rollback rung is committed" in done.stdout
    assert repo.pushed(branch) == "policies: [rollback]\n"
    opened = _opened(repo, tool)
    assert [_title(c) for c in opened] == [
        "GPU migration: roll back takeover-1 to rollback, verify said stop"]
    assert opened[0]["body"].startswith("## Roll back: `takeover-1` → `rollback`")


@pytest.mark.parametrize(("rung", "hour", "scenario", "said"), [
    ("takeover-1", 10, "takeover-1-soaked", "wait: the rung has not synced or soaked yet"),
    ("takeover", 8, "takeover-soaked", "the migration is done: nothing to promote"),
])
def test_wait_and_done_pass_and_change_nothing(
        tmp_path: Path, template: tuple[Run, str, str], rung: str, hour: int, scenario: str,
        said: str) -> None:
    run, tool, branch = template
    repo = Scratch(tmp_path, rung, hour)  # at 10:00: committed after the 09:20 snapshot
    done = run(repo, snapshot(tmp_path, scenario), "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert said in done.stdout
    assert repo.pushed(branch) is None and _opened(repo, tool) == []


def test_refused_fails_the_job(tmp_path: Path, template: tuple[Run, str, str]) -> None:
    run, tool, branch = template
    repo = Scratch(tmp_path, "takeover-1", 8)
    hand = repo.work / "manifests" / "llm-server.yaml"
    hand.write_bytes((ROOT / "examples" / "manifests" / "llm-server.yaml").read_bytes())
    repo.commit("undo the takeover of the LLM server by hand", 8)
    done = run(repo, snapshot(tmp_path, "takeover-1-soaked"), "")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "promote: refused: `tfpolicy check` would change manifests/llm-server.yaml" in (
        done.stderr)
    assert "promote refused (its message is above): nothing changed" in done.stdout
    assert repo.pushed(branch) is None and _opened(repo, tool) == []


def test_an_open_request_is_left_to_be_merged(tmp_path: Path,
                                              template: tuple[Run, str, str]) -> None:
    run, tool, branch = template
    repo = Scratch(tmp_path, "takeover-1", 8)
    done = run(repo, snapshot(tmp_path, "takeover-1-soaked"), "12")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "still open: merge or close it first" in done.stdout
    assert "promote:" not in done.stdout and repo.pushed(branch) is None
    assert _opened(repo, tool) == []


def _cases(script: str) -> set[str]:
    return set(re.findall(r"^\s*(\d+)\)", script, flags=re.MULTILINE))


def test_github_workflow_shape() -> None:
    workflow = yaml.safe_load(GITHUB.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert [bool(re.fullmatch(r"[\d,*/]+ [\d,*/]+ \* \* \*", s["cron"]))
            for s in triggers["schedule"]] == [True]
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert workflow["concurrency"]["cancel-in-progress"] is False
    steps = workflow["jobs"]["promote"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    assert steps[0]["with"]["fetch-depth"] == 0
    script = next(s["run"] for s in steps if "tfpolicy promote" in s.get("run", ""))
    assert _cases(script) >= set(EXITS) and "*)" in script
    assert "--summary" in script and "--commit" in script and "--body-file" in script


def test_gitlab_template_shape() -> None:
    template = yaml.safe_load(GITLAB.read_text(encoding="utf-8"))
    job = template["tfpolicy-promote"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert job["variables"]["GIT_DEPTH"] == "0" and job["variables"]["GIT_STRATEGY"] == "clone"
    script = "\n".join(job["script"])
    assert _cases(script) >= set(EXITS) and "*)" in script
    assert "--summary" in script and "--commit" in script and "description@" in script
