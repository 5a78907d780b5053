"""A scratch repository with a bare ``origin``, and stand-ins for the programs the promote
templates call besides git and tfpolicy (``kubectl``, ``gh``, ``curl``): each logs its
argv (and the pull request's body) as a JSON line; ``kubectl get`` prints the example
snapshot's objects of the kinds asked for, as the real one would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Operator", "GIT_AUTHOR_EMAIL": "operator@example.com",
           "GIT_COMMITTER_NAME": "Operator", "GIT_COMMITTER_EMAIL": "operator@example.com"}

KUBECTL = '''
import json, os, sys, yaml
KINDS = {"pods": "Pod", "replicasets": "ReplicaSet", "events": "Event",
         "gpus.tensor-fusion.ai": "GPU", "gpunodes.tensor-fusion.ai": "GPUNode",
         "gpupools.tensor-fusion.ai": "GPUPool", "applications.argoproj.io": "Application",
         "kustomizations.kustomize.toolkit.fluxcd.io": "Kustomization",
         "helmreleases.helm.toolkit.fluxcd.io": "HelmRelease",
         "gitrepositories.source.toolkit.fluxcd.io": "GitRepository"}
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({"tool": "kubectl", "argv": sys.argv[1:]}) + "\\n")
if sys.argv[1] == "get":
    wanted = {KINDS[k] for k in sys.argv[2].split(",")}
    with open(os.environ["STUB_SNAPSHOT"]) as f:
        snapshot = yaml.safe_load(f)
    items = [i for i in snapshot["items"] if i["kind"] in wanted]
    yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
'''

GH = '''
import json, os, sys
argv = sys.argv[1:]
body = open(argv[argv.index("--body-file") + 1]).read() if "--body-file" in argv else None
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({"tool": "gh", "argv": argv, "body": body}) + "\\n")
if argv[:2] == ["pr", "list"]:
    print(os.environ.get("STUB_OPEN", ""))
'''

CURL = '''
import json, os, sys
argv = sys.argv[1:]
body = None
for value in argv:
    if value.startswith("description@"):
        body = open(value.split("@", 1)[1]).read()
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({"tool": "curl", "argv": argv, "body": body}) + "\\n")
if "POST" not in argv:
    print("[" + ('{"iid": 3}' if os.environ.get("STUB_OPEN") else "") + "]")
'''


class Scratch:
    """``work``: a clone of ``origin`` on main, at ``rung``, committed at ``hour``:00."""

    def __init__(self, tmp: Path, rung: str, hour: int) -> None:
        self.tmp, self.origin, self.work = tmp, tmp / "origin.git", tmp / "work"
        self.stubs, self.log = tmp / "stubs", tmp / "stubs.log"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.origin)],
                       check=True, env=self.env())
        subprocess.run(["git", "clone", "-q", str(self.origin), str(self.work)], check=True,
                       env=self.env(), capture_output=True)
        shutil.copytree(ROOT / "examples" / "manifests", self.work / "manifests")
        shutil.copy(ROOT / "examples" / "inventory.yaml", self.work / "inventory.yaml")
        (self.work / ".tfpolicy.yaml").write_text(f"policies: [{rung}]\n", encoding="utf-8")
        fixed = subprocess.run([str(BIN / "tfpolicy"), "fix", "manifests"], cwd=self.work,
                               env=self.env(), capture_output=True, text=True, check=False)
        assert fixed.returncode == 1, fixed.stderr
        self.commit(f"GPU migration: {rung}", hour)
        self.git("push", "-q", "origin", "main")
        self.stubs.mkdir()
        for name, text in (("kubectl", KUBECTL), ("gh", GH), ("curl", CURL)):
            (self.stubs / name).write_text(f"#!{sys.executable}\n{text}", encoding="utf-8")
            (self.stubs / name).chmod(0o755)

    def env(self, **more: str) -> dict[str, str]:
        path = os.pathsep.join([str(self.tmp / "stubs"), str(BIN), os.environ.get("PATH", "")])
        return {**os.environ, **GIT_ENV, "PATH": path, "STUB_LOG": str(self.tmp / "stubs.log"),
                **more}

    def git(self, *args: str, date: str | None = None) -> str:
        dated = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
        done = subprocess.run(["git", *args], cwd=self.work, env=self.env(**dated),
                              capture_output=True, text=True, check=True)
        return done.stdout

    def commit(self, message: str, hour: int) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, date=f"2026-11-30T{hour:02d}:00:00Z")

    def run(self, script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """``script`` in bash as CI runs it (errexit, pipefail), in the clone."""
        return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=self.work,
                              env=self.env(**env), capture_output=True, text=True,
                              check=False, timeout=300)

    def calls(self, tool: str) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [c for c in map(json.loads, lines) if c["tool"] == tool]

    def pushed(self, branch: str) -> str | None:
        """``.tfpolicy.yaml`` as ``branch`` of origin holds it (None: no such branch)."""
        done = subprocess.run(["git", "--git-dir", str(self.origin), "show",
                               f"refs/heads/{branch}:.tfpolicy.yaml"], env=self.env(),
                              capture_output=True, text=True, check=False)
        return done.stdout if done.returncode == 0 else None


def snapshot(tmp: Path, scenario: str, crash: bool = False) -> Path:
    """A snapshot from the examples' builder; ``crash``: a TensorFusion pod crash-looping."""
    target = tmp / f"{scenario}.yaml"
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "verify" / "build_example.py"),
                           str(target), scenario], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    if crash:
        data = yaml.safe_load(target.read_text(encoding="utf-8"))
        pod = next(i for i in data["items"] if i["kind"] == "Pod" and
                   "tensor-fusion.ai/gpu-ids" in i["metadata"]["annotations"])
        for condition in pod["status"]["conditions"]:
            if condition["type"] in ("Ready", "ContainersReady"):
                condition["status"] = "False"
        pod["status"]["containerStatuses"][0].update({
            "ready": False, "restartCount": 6,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}})
        target.write_text(yaml.safe_dump(data), encoding="utf-8")
    return target
