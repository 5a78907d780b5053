"""``plan``, ``admission`` and ``verify`` name workloads as findings do (``object_ref``): an
object named by ``generateName`` and one with no name never show an empty name segment, in
text, JSON and HTML; a named Deployment reads as before. Run as users run them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))


def _workflow(meta: str, *steps: str) -> str:
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {" + meta + "}\n"
            "spec:\n  entrypoint: main\n  templates:\n" + "".join(
                f"  - name: {step}\n    container:\n      image: x\n"
                "      resources: {limits: {nvidia.com/gpu: 1}}\n" for step in steps))


JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata: {{{meta}}}\nspec:\n  template:\n"
       "    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n"
       "        image: x\n        resources: {{limits: {{nvidia.com/gpu: 1}}}}\n")
DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
              "  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
              "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
              "      - name: c\n        image: x\n        resources: {limits: {nvidia.com/gpu: 1}}\n")
INVENTORY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: Inventory\nmetadata: {name: inv}\n"
             "spec:\n  defaultPool: pool\n  pools:\n  - name: pool\n    nodeGroups: "
             "[{name: n, count: 4, gpusPerNode: 4, model: A100_SXM_80G}]\n")
# A name segment left empty: ``Workflow/default/:``, ``Workflow/default//templates-1``,
# ``Job/default/"`` (JSON), ``Job/default/<`` (HTML), a name at the end of a list.
EMPTY = re.compile(r"\b(?:Workflow|Job|Deployment)/(?:[a-z0-9-]+/)?(?:[/:,\"<)\]]|\s|$)",
                   re.MULTILINE)
NAMED = re.compile(r"\b(?:Workflow|Job|Deployment)/default/(?:\(no name\)|train-\* "
                   r"\(generateName\)|[a-z0-9-]+)(?:/templates-\d)?")
WORKFLOWS = {"Workflow/default/train-* (generateName)/templates-0",
             "Workflow/default/train-* (generateName)/templates-1",
             "Workflow/default/(no name)"}
JOBS = {"Job/default/train-* (generateName)", "Job/default/(no name)"}


def _run(folder: Path, *args: str, codes: tuple[int, ...] = (0, 1)) -> str:
    done = subprocess.run([TFPOLICY, *args], cwd=folder, text=True, capture_output=True,
                          timeout=300, check=False)
    assert done.returncode in codes, done.stderr
    return done.stdout


@pytest.fixture()
def manifests(tmp_path: Path) -> Path:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "wf.yaml").write_text(_workflow("generateName: train-", "main", "eval"))
    (folder / "wf-none.yaml").write_text(_workflow("labels: {a: b}", "main"))
    (folder / "job.yaml").write_text(JOB.format(meta="generateName: train-"))
    (folder / "job-none.yaml").write_text(JOB.format(meta="labels: {a: b}"))
    (folder / "web.yaml").write_text(DEPLOYMENT)
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    return tmp_path


def _names(report: str) -> set[str]:
    assert not EMPTY.findall(report), EMPTY.findall(report)
    return set(NAMED.findall(report))


def test_admission_names_every_template(manifests: Path) -> None:
    text = _run(manifests, "admission", "m")
    assert _names(text) == WORKFLOWS | JOBS | {"Deployment/default/web"}
    heads = [line.split(": untouched")[0] for line in text.splitlines() if ": untouched" in line]
    assert sorted(heads) == sorted(WORKFLOWS | JOBS | {"Deployment/default/web"})
    items = json.loads(_run(manifests, "admission", "m", "--format", "json"))["workloads"]
    by_name = {(i["kind"], i["name"], i.get("generateName"), i["template"]) for i in items}
    assert by_name == {("Workflow", "", "train-", "templates-0"),
                       ("Workflow", "", "train-", "templates-1"), ("Workflow", "", None, ""),
                       ("Job", "", "train-", ""), ("Job", "", None, ""),
                       ("Deployment", "web", None, "")}
    assert len({i["podFile"] for i in items if i["podFile"]}) == len(
        [i for i in items if i["podFile"]])


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_plan_names_every_workload(manifests: Path, fmt: str) -> None:
    report = _run(manifests, "plan", "-p", "takeover", "--inventory", "inventory.yaml",
                  "--format", fmt, "m")
    names = _names(report)
    assert WORKFLOWS | JOBS | {"Deployment/default/web"} <= names, names
    assert "job--" not in report and "workflow--" not in report


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_verify_names_every_workload(manifests: Path, fmt: str) -> None:
    (manifests / "cluster.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")
    report = _run(manifests, "verify", "-p", "takeover", "--inventory", "inventory.yaml",
                  "--cluster", "cluster.yaml", "--format", fmt, "m", codes=(0, 1, 75))
    report = report.replace("<wbr>", "")  # the HTML's line-break hints inside names
    assert _names(report) == JOBS | {"Deployment/default/web"}
    if fmt == "json":
        keys = {w["workload"] for w in json.loads(report)["workloads"]}
        assert keys == JOBS | {"Deployment/default/web"}


@pytest.mark.parametrize("command", ["plan", "admission"])
def test_a_placeholder_error_names_the_object(tmp_path: Path, command: str) -> None:
    (tmp_path / "job.yaml").write_text(JOB.format(meta="generateName: train-")
                                       .replace("gpu: 1", 'gpu: "${GPUS}"'))
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    extra = ("-p", "takeover", "--inventory", "inventory.yaml") if command == "plan" else ()
    done = subprocess.run([TFPOLICY, command, *extra, "job.yaml"], cwd=tmp_path, text=True,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("job.yaml:11:"), done.stderr
    assert ": Job/train-* (generateName): spec.template" in done.stderr, done.stderr


def test_two_runs_of_one_generate_name_are_two_workloads(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(JOB.format(meta="generateName: train-"))
        (tmp_path / f"none-{name}.yaml").write_text(JOB.format(meta="labels: {a: b}"))
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    want = {"Job/default/train-* (generateName)", "Job/default/train-* (generateName) #2",
            "Job/default/(no name)", "Job/default/(no name) #2"}
    plan = json.loads(_run(tmp_path, "plan", "-p", "takeover", "--inventory", "inventory.yaml",
                           "--format", "json", "a.yaml", "b.yaml", "none-a.yaml",
                           "none-b.yaml"))
    assert {w["workload"] for w in plan["steps"][-1]["workloads"]} == want
    text = _run(tmp_path, "admission", ".")
    assert {line.split(": untouched")[0] for line in text.splitlines()
            if ": untouched" in line} == want
    items = json.loads(_run(tmp_path, "admission", ".", "--format", "json"))["workloads"]
    assert len({i["podFile"] for i in items}) == 4
