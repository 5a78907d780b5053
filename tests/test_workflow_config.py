"""One configuration, every command: each command and host, run on the same repository with
only a ``.tfpolicy.yaml`` (policies, namespace, operatorConfig), decides the same.

The policy selects namespace ``ml`` only, and the config says manifests that name
no namespace are in ``ml``: a command that took ``default`` instead would migrate
nothing. The operator configuration lists an AMD provider: a command that did not
read it would leave ``amd.com/gpu`` with the device plugin.
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

BIN = Path(sys.executable).parent
TFPOLICY = str(BIN / "tfpolicy")
ENABLED = "tensor-fusion.ai/enabled"

CONFIG = "policies: [ml.yaml]\nnamespace: ml\noperatorConfig: [operator/providers.yaml]\n"
POLICY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: ml}\n"
          "spec:\n  stage: takeover\n  match: {namespaces: [ml]}\n")
PROVIDERS = ("apiVersion: tensor-fusion.ai/v1\nkind: ProviderConfig\n"
             "metadata: {name: amd-provider}\n"
             "spec: {vendor: AMD, inUseResourceNames: [amd.com/gpu]}\n")
INVENTORY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: Inventory\nmetadata: {name: wf}\n"
             "spec:\n  pools:\n  - name: tensor-fusion-shared\n    nodeGroups:\n"
             "    - {name: a100, count: 1, gpusPerNode: 8, model: A100_SXM_80G}\n")


def _deployment(name: str, resource: str, namespace: str = "") -> str:
    where = f", namespace: {namespace}" if namespace else ""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}{where}}}\n"
            f"spec:\n  replicas: 2\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n"
            f"      containers:\n      - name: c\n        image: x\n"
            f"        resources: {{limits: {{{resource}: 1}}}}\n")


# train: no namespace (so ml, from the config); web: in namespace other, never selected.
NVIDIA = {"apps/train.yaml": _deployment("train", "nvidia.com/gpu"),
          "apps/web.yaml": _deployment("web", "nvidia.com/gpu", "other")}
AMD = {"apps/rocm.yaml": _deployment("rocm", "amd.com/gpu")}


def _repo(tmp: Path, manifests: dict[str, str], config: str = CONFIG) -> Path:
    repo = tmp / "repo"
    files = {".tfpolicy.yaml": config, "ml.yaml": POLICY, "operator/providers.yaml": PROVIDERS,
             "inventory.yaml": INVENTORY, **manifests}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / ".git").mkdir()
    return repo


def _run(args: list[str], cwd: Path, stdin: str = "",
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=120, check=False, env=env)


def _enabled(stream: str) -> set[str]:
    """``Kind/name`` of every object of a manifest stream whose pod template is taken over."""
    return {f"{d['kind']}/{d['metadata']['name']}" for d in yaml.safe_load_all(stream)
            if isinstance(d, dict) and d.get("kind") == "Deployment"
            and d["spec"]["template"]["metadata"].get("labels", {}).get(ENABLED) == "true"}


def _apply(repo: Path) -> set[str]:
    done = _run(["apply", "apps"], repo)
    assert done.returncode == 0, done.stderr
    return _enabled(done.stdout)


def _check(repo: Path) -> set[str]:
    done = _run(["check", "--format", "json", "apps"], repo)
    assert done.returncode == 1, done.stderr
    return {f"{f['resourceRef']['kind']}/{f['resourceRef']['name']}"
            for f in json.loads(done.stdout) if f["tags"]["rule"] == "would-change"}


def _fix(repo: Path) -> set[str]:
    copy = repo.parent / "fixed"
    shutil.copytree(repo, copy)
    done = _run(["fix", "apps"], copy)
    assert done.returncode == 1, done.stderr
    return _enabled("---\n".join(p.read_text() for p in sorted((copy / "apps").glob("*.yaml"))))


def _argocd(repo: Path) -> set[str]:
    """As the cmp-server runs generate: in the app folder, the Application's env."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env.update(ARGOCD_APP_NAME="wf", ARGOCD_APP_NAMESPACE="", ARGOCD_APP_SOURCE_PATH="apps")
    done = _run(["argocd", "generate"], repo / "apps", env=env)
    assert done.returncode == 0, done.stderr
    return _enabled(done.stdout)


def _krm(repo: Path) -> set[str]:
    items = [yaml.safe_load(p.read_text()) for p in sorted((repo / "apps").glob("*.yaml"))]
    given = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                            "items": items})
    done = _run(["krm"], repo, stdin=given)
    assert done.returncode == 0, done.stdout + done.stderr
    return _enabled(yaml.safe_dump_all(yaml.safe_load(done.stdout)["items"]))


def _admission(repo: Path) -> set[str]:
    """What the webhook takes over in what apply writes, and in which namespace."""
    applied = _run(["apply", "apps"], repo).stdout
    done = _run(["admission", "--format", "json", "-"], repo, stdin=applied)
    assert done.returncode == 0, done.stderr
    return {f"{w['kind']}/{w['namespace']}/{w['name']}" for w in json.loads(done.stdout)[
        "workloads"] if w["decision"] != "untouched"}


def _plan(repo: Path) -> set[str]:
    done = _run(["plan", "--inventory", "inventory.yaml", "--format", "json", "apps"], repo)
    assert done.returncode == 0, done.stdout + done.stderr
    last = json.loads(done.stdout)["steps"][-1]
    return {w["workload"] for w in last["workloads"] if w["tensorFusionPods"]}


def _verify(repo: Path) -> set[str]:
    (repo / "cluster.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")
    done = _run(["verify", "--inventory", "inventory.yaml", "--cluster", "cluster.yaml",
                 "--format", "json", "apps"], repo)
    assert done.returncode in (0, 1, 75), done.stderr
    return {w["workload"] for w in json.loads(done.stdout)["workloads"]
            if w["tensorFusionPods"]["expected"]}


EDITS = {"apply": _apply, "check": _check, "fix": _fix, "argocd generate": _argocd,
         "krm": _krm}
REPORTS = {"admission": _admission, "plan": _plan, "verify": _verify}


def test_every_command_migrates_the_same_workloads_in_the_configured_namespace(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path, NVIDIA)
    decided = {name: command(repo) for name, command in EDITS.items()}
    assert decided == {key: {"Deployment/train"} for key in EDITS}  # not web (namespace other)
    reported = {name: command(repo) for name, command in REPORTS.items()}
    assert reported == {key: {"Deployment/ml/train"} for key in REPORTS}


def test_a_flag_wins_over_the_config_on_every_command(tmp_path: Path) -> None:
    repo = _repo(tmp_path, NVIDIA)
    assert _enabled(_run(["apply", "-n", "other", "apps"], repo).stdout) == set()
    found = json.loads(_run(["check", "-n", "other", "--format", "json", "apps"], repo).stdout)
    assert not [f for f in found if f["tags"]["rule"] == "would-change"]
    done = _run(["plan", "-n", "other", "--inventory", "inventory.yaml", "--format", "json",
                 "apps"], repo)
    workloads = {w["workload"] for w in json.loads(done.stdout)["steps"][-1]["workloads"]}
    assert "Deployment/other/train" in workloads


@pytest.mark.parametrize("name", sorted(EDITS))
def test_the_operator_config_decides_the_vendors_of_every_command(tmp_path: Path,
                                                                  name: str) -> None:
    """amd.com/gpu is migrated where the config's operatorConfig lists an AMD provider."""
    configured = _repo(tmp_path / "with", AMD)
    assert EDITS[name](configured) == {"Deployment/rocm"}
    bare = _repo(tmp_path / "without", {**AMD, **NVIDIA},
                 CONFIG.replace("operatorConfig: [operator/providers.yaml]\n", ""))
    assert EDITS[name](bare) == {"Deployment/train"}


def test_operator_config_flag_and_warning(tmp_path: Path) -> None:
    repo = _repo(tmp_path, AMD, CONFIG.replace("operatorConfig: [operator/providers.yaml]\n",
                                               ""))
    done = _run(["check", "--fail-on", "warning", "apps"], repo)
    assert done.returncode == 1 and "gpu-vendor-not-configured" in done.stdout
    assert "AMD" in done.stdout and "configure its ProviderConfig" in done.stdout
    done = _run(["check", "--operator-config", "operator/providers.yaml", "apps"], repo)
    assert done.returncode == 1 and ": would set" in done.stdout and "AMD" not in done.stdout


def test_operator_config_outside_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path, NVIDIA, CONFIG.replace("operator/providers.yaml", "../outside.yaml"))
    done = _run(["check", "apps"], repo)
    assert done.returncode == 2 and "leaves the repository" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and ".tfpolicy.yaml" in done.stderr


def test_a_krm_function_config_takes_the_namespace_it_leaves_out_from_the_config(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path, NVIDIA)
    items = [yaml.safe_load(p.read_text()) for p in sorted((repo / "apps").glob("*.yaml"))]
    for config in (yaml.safe_load(POLICY), {"apiVersion": "v1", "kind": "ConfigMap",
                                            "metadata": {"name": "function-input"},
                                            "data": {"policies": "ml.yaml"}}):
        given = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                "items": items, "functionConfig": config})
        done = _run(["krm"], repo, stdin=given)
        assert done.returncode == 0, done.stdout + done.stderr
        out = yaml.safe_dump_all(yaml.safe_load(done.stdout)["items"])
        assert _enabled(out) == {"Deployment/train"}
