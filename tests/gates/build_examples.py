"""Writes ``examples/gates/*.json`` (run by hand, then review the diff): the answers a real
Prometheus gives the gates of ``examples/gates/tfpolicy.yaml`` for the examples' cluster
at takeover-1 (``examples/cluster/takeover-1-soaked.yaml``), saved by ``tfpolicy verify
--save-metrics``.

Two Prometheus, each backfilled with promtool from ``app_series``: ``steady``, where the
TensorFusion pod of llama-8b-vllm serves as its native pods do, and ``slow``, where it
answers twice as slowly and generates a third fewer tokens. The GPUs report no XID error.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.gates.app_series import GpuXid, PodLoad, at, openmetrics  # noqa: E402
from tests.recommend.prometheus_server import binaries, serving  # noqa: E402
from tfpolicy.cli import main as tfpolicy  # noqa: E402

EXAMPLES = ROOT / "examples"
READY, TAKEN = at("2026-11-30T09:00:00Z"), at("2026-11-30T09:20:00Z")
TF = "llama-8b-vllm-5d68c4592c-b24f4"
NATIVE = ("llama-8b-vllm-5d68c4592c-7413b", "llama-8b-vllm-5d68c4592c-3cd9d",
          "llama-8b-vllm-5d68c4592c-a0e16")
GPU = "GPU-8ABBDB5D-B01B-519F-B2D3-67ADAD4FB821"  # the TensorFusion pod's card


def loads(slow: bool) -> list[PodLoad]:
    tf = PodLoad("ml-serving", TF, READY, TAKEN, 1.0 if slow else 0.5, 65.0 if slow else 99.0)
    return [tf, *(PodLoad("ml-serving", pod, READY, TAKEN, 0.5, 100.0) for pod in NATIVE)]


def save(name: str, slow: bool, folder: Path) -> None:
    _, promtool = binaries()
    source, data = folder / f"{name}.om", folder / f"{name}-data"
    source.write_text("".join(openmetrics(loads(slow), [GpuXid(GPU, READY - 600, TAKEN)])),
                      encoding="utf-8")
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(source),
                    str(data)], check=True, capture_output=True, timeout=600)
    work = folder / name
    shutil.copytree(EXAMPLES / "manifests", work / "manifests")
    shutil.copy(EXAMPLES / "gates" / "tfpolicy.yaml", work / ".tfpolicy.yaml")
    (work / ".git").mkdir()  # the configuration's repository
    with serving(data, folder) as url:
        import os

        os.chdir(work)
        tfpolicy(["fix", "manifests"])
        tfpolicy(["verify", "--step", "1", "--inventory", str(EXAMPLES / "inventory.yaml"),
                  "--cluster", str(EXAMPLES / "cluster" / "takeover-1-soaked.yaml"),
                  "--prometheus", url, "--save-metrics",
                  str(EXAMPLES / "gates" / f"takeover-1-{name}.json"), "manifests"])


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        for name, slow in (("steady", False), ("slow", True)):
            save(name, slow, Path(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
