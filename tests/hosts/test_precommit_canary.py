"""A canary rung under the real pre-commit: a commit names only the files it changes, yet
the rung's workloads are the first of all the config governs (docs/stages.md, "What the
input is"), so a commit touching one file moves what the repository's order picks.

Three PyTorchJobs, one per file, and a Deployment under one ``.tfpolicy.yaml`` at
``takeover-1``; beside them a Helm chart template and a JSON file with comments, which
the order skips as the rewrite does.
"""

from __future__ import annotations

from pathlib import Path

from hostlib import ROOT, TFPOLICY, git, hooked_repo, run, snapshot

INPUT = ROOT / "tests" / "cases" / "canary-workloads" / "input.yaml"
JOBS = ("c", "a", "b")


def _repo(tmp: Path, hook_repo: Path, env: dict[str, str], hook: str) -> Path:
    job, _, deployment = INPUT.read_text(encoding="utf-8").split("---\n")
    files = {f"jobs/{name}.yaml": job.replace("name: finetune", f"name: job-{name}")
             for name in JOBS}
    files.update({
        "deploy.yaml": deployment,
        "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "chart/templates/job.yaml": "kind: PyTorchJob\nspec: {{ .Values.spec }}\n# nvidia.com/gpu\n",
        "tsconfig.json": '{"compilerOptions": {}, // nvidia.com/gpu\n}\n',
        ".tfpolicy.yaml": "policies: [takeover-1]\n",
    })
    return hooked_repo(tmp, hook_repo, env, (hook,), files)


def _commit(repo: Path, env: dict[str, str], *files: str) -> tuple[int, str]:
    git(repo, "add", *files)
    done = run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m",
                "edit"], repo, env)
    return done.returncode, done.stdout + done.stderr


def _edit(repo: Path, name: str) -> None:
    path = repo / name
    path.write_text(path.read_text().replace("finetune:1.2", "finetune:1.3"))


def test_a_commit_of_one_waiting_job_leaves_it_waiting(
        hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _repo(tmp_path, hook_repo, env, "tfpolicy-fix")
    _edit(repo, "jobs/c.yaml")
    before = snapshot(repo)
    code, out = _commit(repo, env, "jobs/c.yaml")
    assert code == 0, out  # job-c is third in the order: takeover-1 leaves it as it is
    assert snapshot(repo) == before
    assert git(repo, "status", "--porcelain") == ""

    _edit(repo, "jobs/a.yaml")
    _edit(repo, "jobs/b.yaml")
    code, out = _commit(repo, env, "jobs/a.yaml", "jobs/b.yaml")
    assert code == 1 and "files were modified by this hook" in out, out
    fixed = {line.removeprefix("Fixing ") for line in out.splitlines()
             if line.startswith("Fixing ")}
    assert fixed == {"jobs/a.yaml"}, out
    after = snapshot(repo)
    assert {n for n in before if before[n] != after[n]} == {"jobs/a.yaml", "jobs/b.yaml"}
    assert "tensor-fusion.ai/enabled" not in after["jobs/b.yaml"].decode()
    done = run([str(TFPOLICY), "check", "jobs", "deploy.yaml"], repo, env)
    would = {line.split(":")[0] for line in done.stdout.splitlines() if ": would " in line}
    assert would == {"deploy.yaml"}, done.stdout + done.stderr  # never named, never fixed


def test_the_check_hook_agrees_file_by_file(
        hook_repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    repo = _repo(tmp_path, hook_repo, env, "tfpolicy-check")
    named = set()
    for name in (*(f"jobs/{n}.yaml" for n in JOBS), "deploy.yaml"):
        path = repo / name
        path.write_text(path.read_text() + "# reviewed\n")
        code, out = _commit(repo, env, name)
        would = {line.split(":")[0] for line in out.splitlines() if ": would " in line}
        assert code == (1 if would else 0), out
        named |= would
        if code:  # check writes nothing: the edit is committed past it
            git(repo, "commit", "-qm", "reviewed", "--no-verify")
    done = run([str(TFPOLICY), "check", "."], repo, env)
    whole = {line.split(":")[0] for line in done.stdout.splitlines() if ": would " in line}
    assert named == whole == {"jobs/a.yaml", "deploy.yaml"}, done.stdout + done.stderr
