"""A render cut off by its reader never exits 0: every host that writes a manifest stream
exits 141 when the reader goes away after 64 KiB of a render over 1 MiB (DESIGN §3).

Python's buffered stdout used to drop the rest of one large write after the kernel's
short write and exit 0 (argocd generate, krm, kustomize transform wrote that way).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

TFPOLICY = Path(sys.executable).with_name("tfpolicy")
EXAMPLES = ROOT / "examples" / "manifests"

COPIES = 220  # of the example's documents: a render of just over 1 MiB
CUT = 64 * 1024
POLICY = ROOT / "tfpolicy" / "policies" / "takeover.yaml"


def _stream(copies: int = COPIES) -> str:
    text = (EXAMPLES / "llm-server.yaml").read_text()
    return "---\n".join(text.replace("name: llm-server", f"name: llm-server-{i}")
                        for i in range(copies))


def _resource_list(stream: str) -> str:
    """The stream's objects as a block-style ResourceList."""
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"},
              "data": {"policies": "takeover"}}
    return yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                           "functionConfig": config,
                           "items": [d for d in yaml.safe_load_all(stream) if d]},
                          sort_keys=False)


def _setup(tmp: Path, host: str) -> tuple[list[str], Path | None]:
    """The command line of ``host`` and the file it reads on stdin."""
    stream = _stream()
    (tmp / "big.yaml").write_text(stream)
    if host == "argocd":
        return ["argocd", "generate"], None
    if host == "apply":
        return ["apply", "-p", "takeover", "big.yaml"], None
    if host == "kustomize":
        return ["kustomize", "transform", str(POLICY)], tmp / "big.yaml"
    (tmp / "list.yaml").write_text(_resource_list(stream))
    return ["krm"], tmp / "list.yaml"


def _read_then_quit(args: list[str], cwd: Path, stdin: Path | None,
                    limit: int) -> tuple[int, int, bytes]:
    """Run ``tfpolicy args`` into a pipe whose reader quits after ``limit`` bytes; its
    exit code, the bytes read and its stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env["ARGOCD_ENV_TFPOLICY_POLICIES"] = "takeover"
    with open(stdin or os.devnull, "rb") as source:
        process = subprocess.Popen([str(TFPOLICY), *args], cwd=cwd, env=env, stdin=source,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        got = 0
        while got < limit:
            chunk = process.stdout.read1(limit - got)
            if not chunk:
                break
            got += len(chunk)
        process.stdout.close()  # the reader goes away
        err = process.stderr.read()
        code = process.wait(timeout=300)
    return code, got, err


@pytest.mark.parametrize("host", ["argocd", "krm", "kustomize", "apply"])
def test_a_reader_gone_after_64_kib_is_exit_141(tmp_path: Path, host: str) -> None:
    args, stdin = _setup(tmp_path, host)
    # Every host's output holds at least its input: a render over 1 MiB.
    assert (stdin or tmp_path / "big.yaml").stat().st_size > 1 << 20
    code, got, err = _read_then_quit(args, tmp_path, stdin, CUT)
    assert got == CUT
    assert code == 141, (code, err)
    assert b"Traceback" not in err and b"internal error" not in err


FULL_DISK_COMMANDS = [
    ["apply", "-p", "takeover", "examples/manifests"],
    ["check", "-p", "takeover", "examples/manifests"],
    ["plan", "-p", "takeover", "--inventory", "examples/inventory.yaml", "examples/manifests"],
    ["admission", "-p", "takeover", "-o", "-", "examples/manifests"],
    ["recommend", "--metrics", "examples/metrics/example-fleet-2d.json", "examples/manifests"],
    ["verify", "-p", "takeover", "--inventory", "examples/inventory.yaml",
     "--cluster", "examples/cluster/after-takeover.yaml", "examples/manifests"],
]


@pytest.mark.parametrize("args", FULL_DISK_COMMANDS, ids=lambda a: a[0])
def test_a_full_disk_is_a_failed_write_not_a_bug_nor_success(args: list[str]) -> None:
    """stdout on a full device: exit 74 (EX_IOERR) with one plain line, never 0 or 3."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run([str(TFPOLICY), *args], cwd=ROOT, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert done.returncode == 74, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last == "tfpolicy: a write failed, the output is not whole: No space left on device"
    assert "internal error" not in done.stderr
