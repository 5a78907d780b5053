"""``fix`` and ``check`` resolve a pod's DRA claims over all its config governs, as every
other entry point resolves them over its whole input (docs/guarantees.md, "A pod's DRA
claims are resolved over the whole input"): a Deployment whose ResourceClaimTemplate is
in another file gets the ``gpu-dra-claim`` warning, also when only its own file is named,
as pre-commit names a commit's files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = Path(sys.executable).parent / "tfpolicy"
TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
"""
APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: gpu-app, namespace: ml}
spec:
  selector: {matchLabels: {app: gpu-app}}
  template:
    metadata: {labels: {app: gpu-app}}
    spec:
      containers:
      - name: main
        image: x
        resources: {claims: [{name: dev}]}
      resourceClaims:
      - name: dev
        resourceClaimTemplateName: two-gpus
"""


def _repo(tmp: Path, config: str = "policies: [takeover]\n") -> Path:
    (tmp / "apps").mkdir()
    (tmp / "claims").mkdir()
    (tmp / "apps" / "gpu-app.yaml").write_text(APP)
    (tmp / "claims" / "templates.yaml").write_text(TEMPLATE)
    (tmp / ".tfpolicy.yaml").write_text(config)
    subprocess.run(["git", "init", "-q"], cwd=tmp, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp, check=True)
    return tmp


def _run(cwd: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run([str(TFPOLICY), *args], cwd=cwd, capture_output=True, text=True,
                          check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(("args", "exit_code"), [
    (("check", "--fail-on", "warning", "."), 1),
    (("check", "--fail-on", "warning", "apps/gpu-app.yaml"), 1),
    (("check", "--fail-on", "warning", "--hook", "--", "apps/gpu-app.yaml"), 1),
    (("fix", "apps/gpu-app.yaml"), 0),  # a warning: fix changes nothing, and passes
    (("fix", "--hook", "--", "apps/gpu-app.yaml"), 0),
    (("check", "-p", "takeover-25", "--fail-on", "warning", "apps", "claims"), 1),
])
def test_a_claim_template_in_another_file_is_found(tmp_path: Path, args: tuple[str, ...],
                                                   exit_code: int) -> None:
    repo = _repo(tmp_path)
    code, out = _run(repo, *args)
    assert code == exit_code, out
    line = next(x for x in out.splitlines() if "gpu-dra-claim" in x or "through" in x)
    assert line.startswith("apps/gpu-app.yaml:") and "warning" in line, out
    assert "2 devices of class gpu.nvidia.com through ResourceClaimTemplate 'two-gpus'" \
        in line, out
    assert "does not hold" not in out
    assert (repo / "apps" / "gpu-app.yaml").read_text() == APP  # nothing of DRA is rewritten


def test_a_claim_no_file_holds_is_still_said_missing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "claims" / "templates.yaml").unlink()
    code, out = _run(repo, "check", "apps/gpu-app.yaml")
    assert code == 0 and "which this input does not hold" in out, out  # an info
