"""One canary rung, one choice: the same objects through every entry point choose the same
whole workloads (docs/stages.md, "The canary rung"). Two StatefulSets and two Jobs at
``takeover-25``: the rung moves one of the four, the first in the order (namespace, kind,
name), whichever host runs tfpolicy: ``apply`` over the folder, ``check``, the KRM function
under the real ``kpt fn eval`` and ``kpt fn render``, the legacy plugin under the real
``kubectl kustomize``, ``argocd generate`` as the CMP sidecar runs it, and ``plan``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from hostlib import BIN, ROOT, TFPOLICY, host_env, need, run, tfpolicy

ENABLED = "tensor-fusion.ai/enabled"
INVENTORY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: Inventory\nmetadata: {name: four}\n"
             "spec:\n  defaultPool: pool\n  pools:\n  - name: pool\n    nodeGroups: [{name: n, "
             "count: 4, gpusPerNode: 4, model: A100_SXM_80G}]\n")
POLICY = ("apiVersion: tfpolicy.dev/v1alpha1\nkind: MigrationPolicy\nmetadata: {name: canary}\n"
          "spec: {stage: takeover, enabledReplicas: \"25%\"}\n")
FILES = ("job-a.yaml", "job-b.yaml", "sts-a.yaml", "sts-b.yaml")


def _workload(kind: str, name: str) -> str:
    job = kind == "Job"
    head = "apiVersion: batch/v1\nkind: Job\n" if job else "apiVersion: apps/v1\nkind: StatefulSet\n"
    spec = "" if job else (f"  replicas: 2\n  serviceName: {name}\n"
                           f"  selector:\n    matchLabels: {{app: {name}}}\n")
    restart = "      restartPolicy: Never\n" if job else ""
    return (f"{head}metadata:\n  name: {name}\n  namespace: ml\nspec:\n{spec}"
            f"  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n{restart}"
            "      containers:\n      - name: main\n        image: x\n        resources:\n"
            "          limits:\n            nvidia.com/gpu: 1\n")


def _package(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in FILES:
        kind = "Job" if name.startswith("job") else "StatefulSet"
        (folder / name).write_text(_workload(kind, name.removesuffix(".yaml")))
    return folder


def _chosen(docs: list[Any]) -> list[str]:
    """``Kind/namespace/name`` of each workload whose pod template the rung migrated."""
    return sorted(f"{d['kind']}/{d['metadata']['namespace']}/{d['metadata']['name']}"
                  for d in docs if isinstance(d, dict) and "spec" in d and ENABLED in (
                      d["spec"]["template"]["metadata"].get("labels") or {}))


def _files(folder: Path) -> list[Any]:
    return [d for name in FILES for d in yaml.safe_load_all((folder / name).read_text())]


def _ok(done: Any) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return str(done.stdout)


def via_apply(tmp: Path) -> list[str]:
    pkg = _package(tmp / "apply")
    return _chosen(list(yaml.safe_load_all(_ok(tfpolicy("apply", "-p", "takeover-25", ".",
                                                            cwd=pkg)))))


def via_check(tmp: Path) -> list[str]:
    pkg = _package(tmp / "check")
    done = tfpolicy("check", "-p", "takeover-25", "--format", "json", *FILES, cwd=pkg)
    assert done.returncode == 1, done.stderr  # the files are not migrated yet
    out = done.stdout
    return sorted(str(f["resourceRef"]["kind"] + "/" + f["resourceRef"]["namespace"] + "/"
                      + f["resourceRef"]["name"]) for f in json.loads(out)
                  if f["tags"]["rule"] == "canary-whole")


def via_kpt_eval(tmp: Path) -> list[str]:
    pkg = _package(tmp / "eval")
    _ok(run([need("kpt"), "fn", "eval", str(pkg), "--exec", f"{TFPOLICY} krm", "--",
             "policies=takeover-25"], tmp))
    return _chosen(_files(pkg))


def via_kpt_render(tmp: Path) -> list[str]:
    pkg = _package(tmp / "render")
    (pkg / "canary.yaml").write_text(POLICY.replace("metadata: {name: canary}",
                                                    "metadata:\n  name: canary\n  annotations:"
                                                    " {config.kubernetes.io/local-config: "
                                                    "'true'}"))
    (pkg / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: render\npipeline:\n"
        f"  mutators:\n  - exec: \"{TFPOLICY} krm\"\n    configPath: canary.yaml\n")
    _ok(run([need("kpt"), "fn", "render", str(pkg), "--allow-exec"], tmp))
    return _chosen(_files(pkg))


def via_kustomize_plugin(tmp: Path) -> list[str]:
    pkg = _package(tmp / "kustomize")
    (pkg / "migration.yaml").write_text(POLICY)
    (pkg / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        + "".join(f"- {name}\n" for name in FILES) + "transformers:\n- migration.yaml\n")
    env = host_env(KUSTOMIZE_PLUGIN_HOME=str(ROOT / "plugins" / "kustomize"),
                   TFPOLICY=str(TFPOLICY))
    out = _ok(run([need("kubectl"), "kustomize", "--enable-alpha-plugins", "."], pkg, env))
    return _chosen(list(yaml.safe_load_all(out)))


def via_argocd_generate(tmp: Path) -> list[str]:
    app = _package(tmp / "repo" / "apps" / "gpu")
    (app / ".tfpolicy.yaml").write_text("policies: [takeover-25]\n")
    for path in app.rglob("*"):
        os.chmod(path, 0o644)
    spec = yaml.safe_load((ROOT / "plugins" / "argocd" / "plugin.yaml").read_text())["spec"]
    env = host_env(ARGOCD_APP_NAME="gpu", ARGOCD_APP_NAMESPACE="ml",
                   ARGOCD_APP_SOURCE_PATH="apps/gpu", KUBE_VERSION="1.32.4")
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    out = _ok(run([*spec["generate"]["command"], *spec["generate"].get("args", [])], app, env))
    return _chosen(list(yaml.safe_load_all(out)))


def via_plan(tmp: Path) -> list[str]:
    pkg = _package(tmp / "plan")
    (tmp / "inventory.yaml").write_text(INVENTORY)
    out = _ok(tfpolicy("plan", "-p", "takeover-25", "--inventory", str(tmp / "inventory.yaml"),
                       "--format", "json", *FILES, cwd=pkg))
    whole = json.loads(out)["steps"][0]["moved"]["whole"]
    return sorted(f"{k}/{ns}/{name}" for k, ns, name in (w.split("/") for w in whole))


ENTRY_POINTS: dict[str, Callable[[Path], list[str]]] = {
    "apply": via_apply, "check": via_check, "kpt fn eval": via_kpt_eval,
    "kpt fn render": via_kpt_render, "kubectl kustomize (legacy plugin)": via_kustomize_plugin,
    "argocd generate": via_argocd_generate, "plan": via_plan,
}


def test_every_entry_point_moves_the_same_one_of_four(tmp_path: Path) -> None:
    chosen = {name: way(tmp_path / name.split()[0]) for name, way in ENTRY_POINTS.items()}
    assert chosen == {name: ["Job/ml/job-a"] for name in ENTRY_POINTS}
