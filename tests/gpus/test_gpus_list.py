"""``tfpolicy gpus`` lists the models an inventory may name; an unknown one gets the nearest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy.gpus.table import lookup

EXAMPLES = ROOT / "examples"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfpolicy.cli", *args], capture_output=True,
                          text=True, cwd=cwd, check=False)


def test_every_listed_model_is_one_an_inventory_may_name() -> None:
    done = _run("gpus", "--format", "json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert len(listed) > 50
    for row in listed:
        for name in (row["model"], row["fullName"]):
            info = lookup(name)
            assert info is not None and info.fp16_tflops == row["fp16Tflops"], name
    text = _run("gpus").stdout.splitlines()
    assert [line.split()[0] for line in text[1:-1]] == [r["model"] for r in listed]


def test_a_filter_keeps_the_models_whose_names_contain_it() -> None:
    rows = _run("gpus", "h100").stdout.splitlines()[1:-1]
    assert rows and all("H100" in row for row in rows)
    assert any(row.startswith("H100_SXM ") for row in rows)


def test_an_unknown_model_names_the_nearest_and_where_the_list_is(tmp_path: Path) -> None:
    inventory = (EXAMPLES / "inventory.yaml").read_text(encoding="utf-8").replace(
        "model: A100_SXM_80G", "model: H100_SXM_80G")
    (tmp_path / "inventory.yaml").write_text(inventory, encoding="utf-8")
    done = _run("plan", "-p", "takeover", "--inventory", "inventory.yaml",
                str(EXAMPLES / "manifests"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("inventory.yaml")
    assert "unknown GPU model 'H100_SXM_80G'; did you mean H100_SXM or " in done.stderr
    assert "A100_SXM_80G" not in done.stderr  # one letter away, but another chip
    assert "`tfpolicy gpus` lists the models" in done.stderr


@pytest.mark.parametrize(("given", "first"), [
    ("NVIDIA H100 80GB", "H100_SXM"),  # a device's full name, cut short
    ("Tesla T4x", "T4"),  # a full name's vendor family word, mistyped
    ("NVIDIA A100-SXM4-80G", "A100_SXM_80G"),  # nvidia-smi's name, one letter off
])
def test_a_mistyped_full_name_suggests_its_model(tmp_path: Path, given: str, first: str) -> None:
    inventory = (EXAMPLES / "inventory.yaml").read_text(encoding="utf-8").replace(
        "model: T4", f"model: {given}")
    (tmp_path / "inventory.yaml").write_text(inventory, encoding="utf-8")
    done = _run("plan", "-p", "takeover", "--inventory", "inventory.yaml",
                str(EXAMPLES / "manifests"), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert f"unknown GPU model '{given}'; did you mean {first}" in done.stderr
    chip = first.split("_")[0]
    named = done.stderr.split("did you mean ", 1)[1].split("?", 1)[0].split(" or ")
    assert all(n.startswith(chip) for n in named)  # no other chip's model among them
