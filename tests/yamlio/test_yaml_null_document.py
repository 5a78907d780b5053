"""A document that is only ``null`` is an empty document, as kubectl reads it (issue 12).

One real chart renders ``--- ~`` between its objects; kubectl skips it, so
tfpolicy passes it through untouched instead of refusing the stream.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TFPOLICY = Path(sys.executable).parent / "tfpolicy"
GPU_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: w
spec:
  selector:
    matchLabels: {app: w}
  template:
    metadata:
      labels: {app: w}
    spec:
      containers:
      - name: main
        image: img:1
        resources:
          limits:
            nvidia.com/gpu: 1
"""


@pytest.mark.parametrize("null", ["--- ~\n", "--- null\n", "---\n~\n", "--- # nothing\n",
                                  "--- !!null ''\n"])
def test_a_null_document_passes_through_and_the_rest_is_rewritten(null: str) -> None:
    alone = _apply(GPU_DEPLOYMENT)
    done = _apply(f"{GPU_DEPLOYMENT}{null}---\n{GPU_DEPLOYMENT}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{alone.stdout}{null}---\n{alone.stdout}"  # the null one as written


def _apply(stream: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TFPOLICY), "apply", "-p", "takeover", "-"], input=stream,
                          capture_output=True, text=True, check=False)


def test_a_scalar_document_that_is_not_null_is_still_refused() -> None:
    done = _apply(f"{GPU_DEPLOYMENT}--- hello\n")
    assert done.returncode == 2
    assert "<stdin>:18" in done.stderr and "must be a mapping" in done.stderr
