"""A file in UTF-16 or UTF-32 (a byte order mark first, as Windows PowerShell 5 writes) is
refused with one line that says so and what to do (tfpolicy/yamlio/stream.py).

kubectl reads such a file; tfpolicy refuses it rather than read it, because
what it writes goes to hosts that take UTF-8 only (a stream on stdout, kpt's
and kustomize's ResourceList, Argo CD's manifests), and ``fix`` would have to
write the file back in an encoding no other tool of the repository expects.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.hosts.hostlib import need

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
TEXT = ("apiVersion: apps/v1\r\nkind: Deployment\r\nmetadata:\r\n  name: d\r\nspec:\r\n"
        "  template:\r\n    spec:\r\n      containers:\r\n      - name: a\r\n        image: x\r\n"
        "        resources:\r\n          limits:\r\n            nvidia.com/gpu: 1\r\n")
ENCODINGS = {"UTF-16": ["utf-16", "utf-16-be"], "UTF-32": ["utf-32", "utf-32-be"]}


def _encoded(name: str) -> bytes:
    bom = {"utf-16-be": b"\xfe\xff", "utf-32-be": b"\x00\x00\xfe\xff"}.get(name, b"")
    return bom + TEXT.encode(name)


@pytest.mark.parametrize("family,name", [(f, n) for f, ns in ENCODINGS.items() for n in ns])
@pytest.mark.parametrize("command", ["apply", "fix", "check"])
def test_a_wide_encoding_is_refused_naming_it(family: str, name: str, command: str,
                                              tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    data = _encoded(name)
    path.write_bytes(data)
    done = subprocess.run([TFPOLICY, command, "-p", "takeover", "d.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"d.yaml:1:1: error: {family} (it opens with a {family} byte order " \
                          "mark): convert to UTF-8\n"
    assert done.stdout == "" and path.read_bytes() == data


def test_on_stdin_too() -> None:
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=_encoded("utf-16"),
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 2 and b"UTF-16" in done.stderr and done.stdout == b""


def test_kubectl_reads_what_is_refused(tmp_path: Path) -> None:
    """Why the refusal names the encoding: the file is a manifest to kubectl."""
    path = tmp_path / "d.yaml"
    path.write_bytes(_encoded("utf-16"))
    done = subprocess.run([need("kubectl"), "label", "--local", "-f", str(path), "x=y", "-o",
                           "name"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "deployment.apps/d", done.stderr


def test_utf8_with_its_byte_order_mark_is_still_read(tmp_path: Path) -> None:
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"],
                          input=b"\xef\xbb\xbf" + TEXT.encode(), capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
