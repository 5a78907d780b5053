"""The bundled step-01 snapshot (``examples/cluster/takeover-1-soaked.yaml``, what ``make
demo`` promotes from) is what its builder writes: regenerated, it is the same bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_step01_snapshot_is_what_its_builder_writes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "verify" / "build_example.py"),
                           str(tmp_path / "built.yaml"), "takeover-1-soaked"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "built.yaml").read_bytes() == (
        ROOT / "examples" / "cluster" / "takeover-1-soaked.yaml").read_bytes()
