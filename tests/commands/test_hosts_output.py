"""``apply -o DIR`` (one file per input file) and progress on a terminal (``--quiet``)."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
MANIFESTS = ROOT / "examples" / "manifests"


def tfpolicy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, *args], capture_output=True, cwd=cwd, text=True,
                          timeout=120, check=False)


def test_apply_output_folder_mirrors_the_inputs(tmp_path: Path) -> None:
    shutil.copytree(MANIFESTS, tmp_path / "in")
    shutil.copyfile(ROOT / "examples" / "vllm.yaml", tmp_path / "vllm.yaml")
    done = tfpolicy("apply", "-p", "takeover", "-o", "out", "in", "vllm.yaml", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    inputs = sorted(str(p.relative_to(tmp_path / "in")) for p in (tmp_path / "in").rglob("*.yaml"))
    written = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*"))
    assert written == sorted([*inputs, "vllm.yaml"])
    for name in ("vllm.yaml", "in/llm-server.yaml"):
        alone = tfpolicy("apply", "-p", "takeover", name, cwd=tmp_path).stdout
        assert (tmp_path / "out" / Path(name).name).read_text() == alone


def test_apply_output_refusals_write_nothing(tmp_path: Path) -> None:
    shutil.copyfile(ROOT / "examples" / "vllm.yaml", tmp_path / "vllm.yaml")
    (tmp_path / "sub").mkdir()
    shutil.copyfile(ROOT / "examples" / "vllm.yaml", tmp_path / "sub" / "vllm.yaml")
    (tmp_path / "bad.yaml").write_text("apiVersion: v1\nkind: Pod\nspec: {x: 'nvidia.com/gpu\n")
    cases = [(["vllm.yaml", "sub/vllm.yaml"], "would both be written"),
             (["-"], "stdin"), (["vllm.yaml", "bad.yaml"], "bad.yaml:")]
    for names, message in cases:
        done = tfpolicy("apply", "-p", "takeover", "-o", "out", *names, cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert message in done.stderr and not (tmp_path / "out").exists()
    done = tfpolicy("apply", "-p", "takeover", "-o", ".", "vllm.yaml", cwd=tmp_path)
    assert done.returncode == 2 and "use `tfpolicy fix`" in done.stderr


def _on_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run with stderr (and stdout) on a pseudo-terminal; what it showed there."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: runs tfpolicy
        os.chdir(cwd)
        os.execv(TFPOLICY, [TFPOLICY, *args])
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode()


def test_progress_only_on_a_terminal_and_not_with_quiet(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "vllm.yaml").read_text()
    for n in range(250):
        (tmp_path / f"m{n:03}.yaml").write_text(text)
    code, shown = _on_terminal(["check", "-p", "takeover", "."], tmp_path)
    assert code == 1 and "[250/250] m249.yaml" in shown.replace("\r\x1b[K", "\n")
    code, shown = _on_terminal(["check", "-q", "-p", "takeover", "."], tmp_path)
    assert code == 1 and "/250]" not in shown
    done = tfpolicy("check", "-p", "takeover", ".", cwd=tmp_path)  # not a terminal
    assert done.returncode == 1 and "/250]" not in done.stderr + done.stdout
