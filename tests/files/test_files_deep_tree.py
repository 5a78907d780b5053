"""A folder nested a thousand deep is walked like any other: every command that walks a
folder (and ``fix``'s hook run, which walks the configs a changed file governs, and
``apply -o``, which makes the same folders again) finds the manifest at the bottom, where
the walk recursed once per level and ended in RecursionError (exit 3). A tree deeper than
the system's longest path is refused with one line (exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
INVENTORY = ROOT / "examples" / "inventory.yaml"
DEPTH = 1000
BOTTOM = "/".join(["d"] * DEPTH) + "/llm.yaml"


def _nest(top: Path, depth: int) -> None:
    """``top/d/d/…/llm.yaml``, made a level at a time from the level above (no path is
    ever longer than one name, whatever the depth)."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        below = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = below
    out = os.open("llm.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(out, LLM.read_bytes())
    os.close(out)
    os.close(fd)


def _unnest(top: Path) -> None:
    """Remove ``top/d/d/…`` a level at a time (``shutil.rmtree``, and pytest's clean-up of
    old temporary folders with it, recurses once per level and cannot)."""
    spare = top / ".spare"
    while (top / "d").is_dir():
        if (top / "d" / "d").is_dir():
            (top / "d" / "d").rename(spare)
        shutil.rmtree(top / "d")
        if spare.is_dir():
            spare.rename(top / "d")


@pytest.fixture()
def nested() -> Iterator[Callable[[Path, int], Path]]:
    """Nests trees for one test, and removes them after it."""
    made: list[Path] = []

    def nest(top: Path, depth: int) -> Path:
        made.append(top)
        _nest(top, depth)
        return top

    yield nest
    for top in made:
        _unnest(top)


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(cwd), "GIT_CEILING_DIRECTORIES": str(cwd.parent)}
    return subprocess.run([TFPOLICY, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    top = tmp_path_factory.mktemp("deep")
    _nest(top, DEPTH)
    (top / ".tfpolicy.yaml").write_text("policies: [./policy.yaml]\n")
    (top / "policy.yaml").write_bytes((ROOT / "policies" / "takeover.yaml").read_bytes())
    yield top
    _unnest(top)


@pytest.mark.parametrize("args", [
    ("check", "-p", "takeover", "."),
    ("check", "--hook", "--", ".tfpolicy.yaml"),  # the files the changed config governs
    ("check", "--hook", "--", "policy.yaml"),  # the configs naming the changed policy
    ("plan", "-p", "takeover", "--inventory", str(INVENTORY), "."),
    ("admission", "."),
], ids=["check", "hook-config", "hook-policy", "plan", "admission"])
def test_every_walk_reaches_the_bottom(deep: Path, args: tuple[str, ...]) -> None:
    done = _run(deep, *args)
    assert done.returncode in (0, 1), done.stderr[-500:]
    if args[0] == "check":
        assert done.stdout.startswith(f"{BOTTOM}:"), done.stdout[-500:]
    else:
        assert "llama-8b-vllm" in done.stdout


def test_apply_writes_the_bottom_file_again_under_o(deep: Path, tmp_path: Path) -> None:
    try:
        done = _run(deep, "apply", "-p", "takeover", "-o", str(tmp_path / "out"), ".")
        assert done.returncode == 0, done.stderr[-500:]
        assert "tensor-fusion.ai/enabled" in (tmp_path / "out" / BOTTOM).read_text()
    finally:
        _unnest(tmp_path / "out")


def test_fix_rewrites_the_bottom_file(tmp_path: Path,
                                      nested: Callable[[Path, int], Path]) -> None:
    nested(tmp_path, DEPTH)
    done = _run(tmp_path, "fix", "-p", "takeover", ".")
    assert done.returncode == 1, done.stderr[-500:]
    assert done.stdout == f"Fixing {BOTTOM}\n"
    assert "tensor-fusion.ai/enabled" in (tmp_path / BOTTOM).read_text()


def test_a_tree_deeper_than_a_path_can_be_is_refused(
        tmp_path: Path, nested: Callable[[Path, int], Path]) -> None:
    nested(tmp_path, 2100)  # 4,200 bytes of path: over Linux's PATH_MAX of 4,096
    done = _run(tmp_path, "check", "-p", "takeover", ".")
    assert (done.returncode, done.stdout) == (2, "")
    line, = done.stderr.splitlines()
    assert line.startswith("d/d/") and line.endswith(": error: cannot list: File name too long")
