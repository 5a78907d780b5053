"""A placeholder GPU count is refused by ``admission`` and ``plan`` at the quantity itself
(issue 14 §3): one ``file:line:col`` line, exit 2, nothing on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.cli import main

INVENTORY = ROOT / "tests" / "cases" / "plan-rollout" / "statefulset-partition" / "inventory.yaml"

# The bad document is the third: an empty one and a good GPU Deployment come first.
MANIFESTS = """\
# a service first
apiVersion: v1
kind: Service
metadata:
  name: web
---
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ok
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: main
          image: example/serve:1
          resources:
            limits:
              nvidia.com/gpu: 1
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: trainer
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: main
          image: example/train:1
          resources:
            limits: {cpu: 1, nvidia.com/gpu: $GPU_PER_NODE}
"""
FLOW_AT = (35, 46)  # the `$` of `$GPU_PER_NODE`

# A Go template placeholder, in a pod whose parts live apart, inside a List.
KSERVE = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: more}
  - apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata:
      name: llama
    spec:
      predictor:
        model:
          modelFormat: {name: huggingface}
          resources:
            requests:
              nvidia.com/gpu: '{{ .Values.gpus }}'
"""
KSERVE_AT = (21, 31)


def _commands(manifest: Path) -> list[list[str]]:
    return [["admission", str(manifest)],
            ["plan", "-p", "takeover", "--inventory", str(INVENTORY), str(manifest)]]


@pytest.mark.parametrize(("text", "at", "shown", "command"), [
    (MANIFESTS, FLOW_AT, "StatefulSet/trainer: spec.template.spec.containers[0].resources"
                         ".limits[nvidia.com/gpu]: '$GPU_PER_NODE'", command)
    for command in ("admission", "plan")] + [
    (KSERVE, KSERVE_AT, "InferenceService/llama: items[1].spec.predictor.model.resources"
                        ".requests[nvidia.com/gpu]: '{{ .Values.gpus }}'", command)
    for command in ("admission", "plan")
])
def test_a_placeholder_is_refused_at_its_line_and_column(
        text: str, at: tuple[int, int], shown: str, command: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "fleet.yaml"
    manifest.write_text(text)
    args = next(a for a in _commands(manifest) if a[0] == command)
    code = main(args)
    out, err = capsys.readouterr()
    line, column = at
    assert (code, out) == (2, "")
    assert err == (f"{manifest}:{line}:{column}: error: {shown} is a placeholder, not a "
                   "quantity: render the manifest first (envsubst, helm template, ...)\n")
    assert text.splitlines()[line - 1][column - 1] in "$'"


@pytest.mark.parametrize("command", ["admission", "plan"])
def test_a_placeholder_on_stdin_is_located_too(command: str) -> None:
    args = [a if a != "MANIFEST" else "-" for a in next(
        a for a in _commands(Path("MANIFEST")) if a[0] == command)]
    run = subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], input=MANIFESTS,
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr.startswith("<stdin>:35:46: error: StatefulSet/trainer: ")
    assert len(run.stderr.splitlines()) == 1
