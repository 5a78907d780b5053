"""Partitioned isolation on verify's GPU ledger: MIG slices as the allocator records them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfpolicy.cli import main
from tfpolicy.verify.partitions import TEMPLATES, Placed, find, ledger

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "verify"
A100 = (312_000, 81_920)  # milli-TFLOPS, MiB


def _report(capsys: pytest.CaptureFixture[str], snapshot: str) -> tuple[int, dict[str, Any]]:
    code = main(["verify", "-p", "takeover", "--format", "json",
                 str(HERE / "partitioned.yaml"), "--cluster", str(HERE / "snapshots" / snapshot)])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("asked", "vram", "found"), [
    ("nv-80g-3g-40gb", 81_920, "nv-80g-3g-40gb"),
    ("3g.40gb", 81_920, "nv-80g-3g-40gb"),
    ("MIG-3g.40gb", 81_920, "nv-80g-3g-40gb"),
    ("1g.10gb", 81_920, "nv-80g-1g-10gb"),  # also a 40 GB template: the GPU's VRAM decides
    ("1g.10gb", 40_960, "nv-40g-1g-10gb"),
    ("1g.10gb+me", 81_920, "nv-80g-1g-10gb-me"),
    ("7g.141gb", 143_771, "nv-h200-7g-141gb"),
    ("9g.90gb", 81_920, None),
])
def test_templates_are_found_by_id_or_name(asked: str, vram: int, found: str | None) -> None:
    template = find(asked, vram)
    assert (template.id if template else None) == found


def test_a_slice_takes_its_share_as_the_allocator_rounds_it() -> None:
    """%.2f of computePercent × capacity / 100, and memoryGigabytes GiB."""
    three = next(t for t in TEMPLATES if t.id == "nv-80g-3g-40gb")
    assert (three.tflops(312_000), three.vram) == (133_710, 40_960)
    seventh = next(t for t in TEMPLATES if t.id == "nv-80g-1g-10gb")
    assert seventh.tflops(989_500) == 141_360  # 14.2857 × 989.5 / 100 = 141.3570…
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES) == 24


def test_the_ledger_counts_the_gpus_own_partitions() -> None:
    status = {"allocatedPartitions": {
        "u1": {"templateId": "nv-80g-3g-40gb", "podUid": "u1", "podName": "a", "namespace": "n"},
        "u2": {"templateId": "nv-80g-2g-20gb", "podUid": "u2", "podName": "b", "namespace": "n"}}}
    placed = [Placed("n/a", "u1", "3g.40gb"), Placed("n/b", "u2", "")]
    assert ledger(placed, status, A100) == (133_710 + 89_140, 40_960 + 20_480, [])
    wrong = [Placed("n/a", "u1", "1g.10gb")]
    _, _, problems = ledger(wrong, status, A100)
    assert problems == ["n/a asks partition '1g.10gb', the GPU gave it nv-80g-3g-40gb",
                        "partition nv-80g-2g-20gb of n/b, which does not run on this GPU, "
                        "is not released"]


def test_slices_as_the_plan_leaves_them_are_ready(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _report(capsys, "partitioned-clean.yaml")
    assert code == 0 and report["verdict"] == "ready"
    sliced = {g["name"][-4:]: (g["available"], g["expected"], len(g["partitions"]))
              for g in report["gpus"] if g["partitions"]}
    assert sliced == {"2b80": ({"tflops": 178.29, "vramMiB": 40960},
                               {"tflops": 178.29, "vramMiB": 40960}, 1),
                      "5a05": ({"tflops": 44.58, "vramMiB": 0},
                               {"tflops": 44.58, "vramMiB": 0}, 2)}


def test_a_lost_and_a_leaked_partition_stop_the_step(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, report = _report(capsys, "partitioned-leak.yaml")
    off = [g for g in report["gpus"] if g["verdict"] != "ready"]
    assert code == 1 and report["verdict"] == "stop" and len(off) == 1
    assert "embedder-5f7d9c8b6-d9p3r is partitioned, the GPU reports no partition" in \
        off[0]["message"]
    assert "embedder-5f7d9c8b6-a1x5z, which does not run on this GPU, is not released" in \
        off[0]["message"]


def test_dynamic_policy_gpus_refuse_partitioned_pods(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, report = _report(capsys, "partitioned-dynamic.yaml")
    embedder = report["workloads"][0]
    assert code == 1 and embedder["verdict"] == "stop"
    assert any("Dynamic isolation policy" in p["message"] for p in embedder["problems"])
