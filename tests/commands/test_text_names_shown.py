"""Every text a command prints shows a name's control characters (``render.visible``): an
object's name or namespace holding ``ESC ] 0;… BEL`` (retitle the window), ``ESC [2J``
(clear the screen), CR, a C1 CSI or DEL, and a file named with an escape, reach the
terminal of ``check``, ``check --diff``, ``apply``, ``fix``, ``plan``, ``admission``,
``init`` and an exit-2 error line as ``\\x1b`` text, never raw. ``init`` keeps a name in
the comments of the config it writes."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
INVENTORY = ROOT / "examples" / "inventory.yaml"
FILE = "e\x1b[2Jvil.yaml"
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "v\\e]0;PWNED\\a\\e[2Jx\\r\\x9b31m"
  namespace: "ns\\e[31m\\x7fred"
spec:
  replicas: 2
  selector: {matchLabels: {app: v}}
  template:
    metadata: {labels: {app: v}}
    spec:
      initContainers:
      - name: init
        image: x
        resources: {limits: {nvidia.com/gpu: 1}}
      containers:
      - name: c
        image: x
        resources: {limits: {nvidia.com/gpu: 1}}
"""
SHOWN_NAME = "v\\x1b]0;PWNED\\x07\\x1b[2Jx\\r\\x9b31m"
SHOWN_NAMESPACE = "ns\\x1b[31m\\x7fred"
COMMANDS = {
    "check": ["check", "-p", "takeover", "."],
    "check --diff": ["check", "-p", "takeover", "--diff", "."],
    "apply": ["apply", "-p", "takeover", "."],
    "fix": ["fix", "-p", "takeover", "."],
    "plan": ["plan", "-p", "takeover", "--inventory", str(INVENTORY), "."],
    "admission": ["admission", "."],
    "init": ["init", "."],
}


def _raw_controls(data: bytes) -> set[str]:
    """The control characters (C0, DEL, C1) in ``data`` but the line feed."""
    return {c for c in data.decode("utf-8") if unicodedata.category(c) == "Cc"} - {"\n"}


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TFPOLICY, *args], cwd=folder, capture_output=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_prints_a_names_control_characters(tmp_path: Path, command: str) -> None:
    (tmp_path / FILE).write_text(MANIFEST)
    (tmp_path / ".git").mkdir()
    done = _run(tmp_path, *COMMANDS[command])
    assert done.returncode in (0, 1), done.stderr
    printed = done.stderr if command == "apply" else done.stdout + done.stderr
    assert not _raw_controls(printed), printed.decode()
    text = printed.decode()
    assert SHOWN_NAME in text or "e\\x1b[2Jvil.yaml" in text, text


def test_init_keeps_names_inside_its_comments(tmp_path: Path) -> None:
    """A line feed in a namespace would have started a key of its own in the config."""
    manifest = MANIFEST.replace('"ns\\e[31m\\x7fred"', '"team\\nnamespace: prod"')
    (tmp_path / "app.yaml").write_text(manifest)
    (tmp_path / ".git").mkdir()
    done = _run(tmp_path, "init", ".")
    assert done.returncode == 0, done.stderr
    config = (tmp_path / ".tfpolicy.yaml").read_text()
    assert yaml.safe_load(config) == {"policies": ["takeover-1"]}
    assert "# namespaces: team\\nnamespace: prod\n" in config
    assert f"  Deployment/team\\nnamespace: prod/{SHOWN_NAME}\n" in done.stdout.decode()


def test_an_error_line_shows_the_file_names_escapes(tmp_path: Path) -> None:
    (tmp_path / "bad\x1b]0;x\x07\n.yaml").write_text("a: [\n")
    done = _run(tmp_path, "check", "-p", "takeover", ".")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("bad\\x1b]0;x\\x07\\n.yaml:2:1: error: ")
    assert done.stderr.count(b"\n") == 1 and not _raw_controls(done.stderr)


def test_explain_shows_a_skipped_files_escapes(tmp_path: Path) -> None:
    (tmp_path / "notes\x1b[2J.json").write_text('{\n  // JSONC\n  "a": 1,\n}\n')
    (tmp_path / "app.yaml").write_text(MANIFEST)
    done = _run(tmp_path, "check", "-p", "takeover", "--explain", ".")
    assert done.returncode == 1, done.stderr
    assert b"tfpolicy: skipped notes\\x1b[2J.json: " in done.stderr
    assert not _raw_controls(done.stdout + done.stderr)
