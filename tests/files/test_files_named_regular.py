"""A file is opened only when it is a regular file: a FIFO (or a device) named as a manifest,
a policy, an operator configuration, values or an inventory, on the command line, in a
repository's ``.tfpolicy.yaml`` or in a KRM function's ``data.policies``, is refused with
one line and exit 2 at once, where opening it waited for a writer for ever. Folder walks
already passed FIFOs over; a named file did not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
LLM = ROOT / "examples" / "manifests" / "llm-server.yaml"
INVENTORY = ROOT / "examples" / "inventory.yaml"
FIFO = "pipe.yaml"
NAMED = {
    "check manifest": (["check", "-p", "takeover", FIFO], ""),
    "apply manifest": (["apply", "-p", "takeover", FIFO], ""),
    "fix manifest": (["fix", "-p", "takeover", FIFO], ""),
    "plan manifest": (["plan", "-p", "takeover", "--inventory", str(INVENTORY), FIFO], ""),
    "admission manifest": (["admission", FIFO], ""),
    "policy -p": (["check", "-p", f"./{FIFO}", "app.yaml"], ""),
    "operator config": (["check", "-p", "takeover", "--operator-config", FIFO, "app.yaml"],
                        ""),
    "inventory": (["plan", "-p", "takeover", "--inventory", FIFO, "app.yaml"], ""),
    "values": (["admission", "--values", FIFO, "app.yaml"], ""),
    "config policies": (["check", "app.yaml"], f"policies: [./{FIFO}]\n"),
    "config operatorConfig": (["check", "app.yaml"],
                              f"policies: [takeover]\noperatorConfig: [{FIFO}]\n"),
}
KRM = f"""\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {{name: function-input}}
  data: {{policies: ./{FIFO}}}
"""


def _repo(tmp_path: Path, config: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "app.yaml").write_bytes(LLM.read_bytes())
    os.mkfifo(tmp_path / FIFO)
    if config:
        (tmp_path / ".tfpolicy.yaml").write_text(config)
    return tmp_path


def _run(cwd: Path, args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([TFPOLICY, *args], cwd=cwd, input=stdin, capture_output=True,
                              text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"tfpolicy {' '.join(args)} waited on the FIFO")


@pytest.mark.parametrize("case", sorted(NAMED))
def test_a_fifo_named_is_refused_at_once(tmp_path: Path, case: str) -> None:
    args, config = NAMED[case]
    done = _run(_repo(tmp_path, config), args)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    line, = done.stderr.splitlines()
    assert line.endswith("pipe.yaml: error: not a regular file (a FIFO): only regular files "
                         "are read"), line


def test_a_krm_functions_fifo_policy_is_refused_at_once(tmp_path: Path) -> None:
    done = _run(_repo(tmp_path, ""), ["krm"], stdin=KRM)
    assert done.returncode != 0
    assert "not a regular file (a FIFO)" in done.stdout + done.stderr


def test_a_device_named_as_a_manifest_is_refused(tmp_path: Path) -> None:
    """``/dev/zero`` was read up to the 1 GiB limit before it was refused."""
    done = _run(tmp_path, ["apply", "-p", "takeover", "/dev/zero"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("/dev/zero: error: not a regular file (a character device): only "
                           "regular files are read\n")


def test_a_folder_walk_still_passes_a_fifo_over(tmp_path: Path) -> None:
    done = _run(_repo(tmp_path, ""), ["check", "-p", "takeover", "."])
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("app.yaml:")


def test_a_stream_the_shell_hands_down_is_read(tmp_path: Path) -> None:
    """``/dev/stdin`` or ``<(…)`` (``/dev/fd/N``) is the user's stream, named by its
    descriptor: read, as ``-`` is."""
    done = _run(tmp_path, ["apply", "-p", "takeover", "/dev/stdin"], stdin=LLM.read_text())
    assert done.returncode == 0, done.stderr
    assert "tensor-fusion.ai/enabled" in done.stdout
