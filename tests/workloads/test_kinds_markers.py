"""A document that asks for GPUs without naming a GPU resource is still read.

MPIJob v1alpha1 asks with a bare ``spec.gpus`` count, and the operator sets
the workers' resources from it: ``check`` must report it (kind-not-migrated)
rather than skip the document for naming no GPU resource.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MPIJOB = """apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata:
  name: tf-resnet
spec:
  gpus: 16
  template:
    spec:
      containers:
        - name: tensorflow
          image: mpioperator/tensorflow-benchmarks:latest
"""


def test_an_mpijob_asking_by_count_is_reported(tmp_path: Path) -> None:
    manifest = tmp_path / "mpijob.yaml"
    manifest.write_text(MPIJOB)
    tfpolicy = Path(sys.executable).parent / "tfpolicy"
    result = subprocess.run([str(tfpolicy), "check", "-p", "takeover", str(manifest)],
                            capture_output=True, text=True, check=False)
    assert f"{manifest}:6:9: [warning] MPIJob/tf-resnet: not migrated: MPIJob v1alpha1 " \
           "spec.gpus" in result.stdout, result.stdout
