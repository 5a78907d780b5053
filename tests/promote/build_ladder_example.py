"""Writes ``examples/cluster/ladder-takeover-soaked.yaml`` (run by hand, then review the diff):
the bundled examples at step 04 (takeover-100) of the plan of ``examples/ladder/rightsize.yaml``
(what ``tfpolicy recommend`` makes of ``examples/metrics/example-fleet-2d.json``), every pod
ready since 09:00 and the operator's last sync at 09:20, built by verify's example builder
(``tests/verify/build_example.py``) with that policy in place of ``takeover``: the workloads
the recommendation leaves out stay on the device plugin. ``make demo`` promotes it from
takeover-100 to rightsize-1."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "ladder" / "rightsize.yaml"
TARGET = ROOT / "examples" / "cluster" / "ladder-takeover-soaked.yaml"
HEADER = (
    "# The bundled examples at step 04 (takeover-100) of the plan of examples/ladder/\n"
    "# rightsize.yaml, synced, every pod ready since 09:00 and the operator's last sync at\n"
    "# 09:20; built by tests/promote/build_ladder_example.py. With examples/ladder/\n"
    "# tfpolicy.yaml (rung: takeover-100) committed before 09:20, `tfpolicy promote\n"
    "# --inventory examples/inventory.yaml --cluster examples/cluster/ladder-takeover-soaked.yaml\n"
    "# --commit` advances to rightsize-1.\n")


def example_builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_example", ROOT / "tests" / "verify" / "build_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main(target: Path = TARGET) -> int:
    build = example_builder()
    build.SCENARIOS["ladder"] = build.Scenario((str(POLICY),), 4, "", "2026-11-30T09:20:00Z",
                                               HEADER)
    return int(build.main(target, "ladder"))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET))
