"""plan's and admission's text show a name's control characters as text: an object named
with a terminal escape or a line feed neither commands the terminal nor starts a line."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.plan.inventories import one_node

# A Deployment whose name holds ESC [2J (clear the screen) and a line feed that would
# start a line of its own reading like a verdict.
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "evil\\e[2J\\nstep 99: fits"
  namespace: "ns\\e]0;title\\a"
spec:
  replicas: 1
  selector: {matchLabels: {app: evil}}
  template:
    metadata: {labels: {app: evil}}
    spec:
      containers:
        - name: main
          image: registry.example/serve:1
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _run(tmp_path: Path, *args: str) -> str:
    (tmp_path / "manifests.yaml").write_text(MANIFEST)
    (tmp_path / "inventory.yaml").write_text(one_node(4))
    done = subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args, "manifests.yaml"],
                          cwd=tmp_path, capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.decode("utf-8")  # strict: every byte UTF-8


@pytest.mark.parametrize("args", [
    ("plan", "-p", "takeover", "--inventory", "inventory.yaml"),
    ("admission", "-p", "takeover"),
], ids=["plan", "admission"])
def test_a_hostile_name_is_shown_not_obeyed(tmp_path: Path, args: tuple[str, ...]) -> None:
    out = _run(tmp_path, *args)
    assert not {c for c in out if unicodedata.category(c) == "Cc"} - {"\n"}
    assert "evil\\x1b[2J\\nstep 99: fits" in out
    assert not any(line.startswith("step 99") for line in out.splitlines())
