"""New keys go where a person would write them (issue 14 §4), and rollback takes them out.

A pod template without ``metadata`` gets it before its ``spec`` (a comment
above ``spec`` stays with it); ``labels`` go before ``annotations``, whether
both are new or the annotations were there; every other new key still goes
after its mapping's last entry. Rolling the rewrite back gives the input's
bytes again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = Path(sys.executable).parent / "tfpolicy"
INPUT = (ROOT / "tests/cases/takeover/new-keys-where-people-write-them/input.yaml")


def _run(policy: str, stream: str) -> str:
    done = subprocess.run([str(TFPOLICY), "apply", "-p", policy, "-"], input=stream,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _order(doc: str, *keys: str) -> list[int]:
    return [doc.index(key) for key in keys]


def test_metadata_before_spec_and_labels_before_annotations() -> None:
    pod, bare, annotated = _run("takeover", INPUT.read_text()).split("---\n")
    assert _order(pod, "  labels:", "  annotations:", "# the pod's spec", "\nspec:") == \
        sorted(_order(pod, "  labels:", "  annotations:", "# the pod's spec", "\nspec:"))
    template = bare[bare.index("  template:"):]
    assert template.index("    metadata:") < template.index("    spec:")
    assert template.index("      labels:") < template.index("      annotations:")
    template = annotated[annotated.index("  template:"):]
    assert template.index("      labels:") < template.index("      annotations:")
    assert template.index("        a: b") < template.index("tensor-fusion.ai/isolation")


def test_rolling_back_gives_the_input_bytes_again() -> None:
    text = INPUT.read_text()
    assert _run("rollback", _run("takeover", text)) == text


SHARE = """apiVersion: tfpolicy.dev/v1alpha1
kind: MigrationPolicy
metadata: {name: share}
spec:
  stage: rightsize
  resources:
    tflops: {request: "30", limit: "60"}
    vram: {request: 8Gi, limit: 16Gi}
"""


SERVING = """apiVersion: apps/v1
kind: Deployment
metadata: {name: serving, namespace: ml}
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: serving}
      annotations:
        prometheus.io/scrape: "true"  # the user's
    spec:
      containers:
      - name: server
        image: vllm/vllm-openai:v0.6.3
        resources:
          limits: {nvidia.com/gpu: 1}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: trainer, namespace: ml}
spec:
  template:
    spec:
      containers:
      - name: main
        image: img:1
        resources:
          limits:
            nvidia.com/gpu: 2
"""


def test_a_key_added_beside_the_record_goes_before_it(tmp_path: Path) -> None:
    """tfpolicy's record is the last annotation a stage writes; a key a later stage adds
    beside it goes before it. So takeover after a rightsize that dropped the isolation
    annotation gives takeover's own bytes back, and a rightsize after takeover writes what
    a rightsize of the input writes (the promote ladder's rollback to whole cards)."""
    share = tmp_path / "share.yaml"
    share.write_text(SHARE, encoding="utf-8")
    source = SERVING
    whole = _run("takeover", source)
    shared = _run(str(share), whole)
    assert "tensor-fusion.ai/isolation" not in shared  # the share dropped it: a test that can fail
    assert _run("takeover", shared) == whole
    assert shared == _run(str(share), source)
    for doc in shared.split("---\n"):
        annotations = [line.strip().split(":")[0] for line in doc.splitlines()
                       if line.strip().startswith(("tensor-fusion.ai/", "tfpolicy.dev/"))]
        if "tfpolicy.dev/original" in annotations:
            assert annotations[-1] == "tfpolicy.dev/original"
