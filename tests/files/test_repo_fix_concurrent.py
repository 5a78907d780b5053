"""``fix`` while another program appends to the files it rewrites: no appended line is ever
lost without a report (issue 24 §4). Each line is in the file afterwards, or in a
``NAME.tfpolicy-conflict`` copy that the run named on stderr (exit 1).

Real processes: a bounded appender beside rounds of ``fix`` moving the files between two
stages, so every round replaces every file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfpolicy import cli
from tfpolicy.files import swap
from tfpolicy.files.swap import CONFLICT

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
EXAMPLE = ROOT / "examples" / "manifests" / "llm-server.yaml"
FILES = 12
ROUNDS = 7
LINE = re.compile(r"^# appended (\d+)$", re.MULTILINE)
# Appends "# appended N" lines, N counting up, until the stop file appears (or 120 s
# pass); then writes how many it appended. Open, write, close per line, as ``echo >>``
# does, in bursts of 20 lines on one file then a pause, so fix finds most files as it read
# them and replaces them while lines still come in.
APPENDER = """
import os, sys, time
stop, count, files = sys.argv[1], sys.argv[2], sys.argv[3:]
n, end = 0, time.monotonic() + 120
while not os.path.exists(stop) and time.monotonic() < end:
    with open(files[(n // 20) % len(files)], "a") as f:
        f.write(f"# appended {n}\\n")
    time.sleep(0.0002 if n % 20 else 0.05)
    n += 1
open(count, "w").write(str(n))
"""
# Opens every file for appending and says so (the ready file), holds them open, and once
# the stop file appears writes 5 lines through each descriptor: a writer that keeps its
# descriptor across fix's replacement (a logger, ``exec >>file``).
HOLDER = """
import os, sys, time
stop, count, files = sys.argv[1], sys.argv[2], sys.argv[3:]
held = [open(f, "a", buffering=1) for f in files]
open(stop + ".ready", "w").close()
end = time.monotonic() + 120
while not os.path.exists(stop) and time.monotonic() < end:
    time.sleep(0.01)
n = 0
for _ in range(5):
    for f in held:
        f.write(f"# appended {n}\\n")
        n += 1
for f in held:
    f.close()
open(count, "w").write(str(n))
"""


def _repo(tmp: Path) -> list[str]:
    (tmp / ".git").mkdir()
    names = [f"m{i:02d}.yaml" for i in range(FILES)]
    for name in names:
        shutil.copyfile(EXAMPLE, tmp / name)
    return names


def _fix(tmp: Path, stage: str, names: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TFPOLICY, "fix", "-p", stage, *names], cwd=tmp, text=True,
                          capture_output=True, timeout=300, check=False)


def _appender(tmp: Path, names: list[str], script: str = APPENDER) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", script, str(tmp / "stop"),
                             str(tmp / "count"), *names], cwd=tmp)


def _stop(tmp: Path, appender: subprocess.Popen[bytes]) -> int:
    (tmp / "stop").touch()
    assert appender.wait(timeout=150) == 0
    return int((tmp / "count").read_text())


def _found(tmp: Path) -> tuple[set[int], list[Path]]:
    """The appended numbers in the files and in the conflict copies, and those copies."""
    copies = sorted(tmp.glob(f"*{CONFLICT}*"))
    numbers: set[int] = set()
    for path in [*tmp.glob("m*.yaml"), *copies]:
        numbers.update(int(n) for n in LINE.findall(path.read_text()))
    return numbers, copies


def _check(tmp: Path, total: int, reports: str) -> list[Path]:
    numbers, copies = _found(tmp)
    assert total > 0
    missing = sorted(set(range(total)) - numbers)
    assert missing == [], f"{len(missing)} of {total} appended lines lost: {missing[:10]}"
    for copy in copies:  # every copy was reported by the run that made it
        assert f" {copy.name}, fix's rewrite is in place" in reports, (copy, reports)
    assert not [p for p in tmp.iterdir() if p.name.endswith(".tfpolicy")]  # no temp left
    return copies


def test_an_appender_reopening_the_files_loses_nothing_silently(tmp_path: Path) -> None:
    names = _repo(tmp_path)
    appender = _appender(tmp_path, names)
    reports = ""
    try:
        for round_ in range(ROUNDS):
            done = _fix(tmp_path, "takeover" if round_ % 2 == 0 else "rollback", names)
            assert done.returncode in (0, 1), done.stderr  # 0: all left alone, nothing to do
            assert "Traceback" not in done.stderr and "internal error" not in done.stderr
            reports += done.stderr
    finally:
        total = _stop(tmp_path, appender)
    _check(tmp_path, total, reports)


def test_an_appender_holding_the_files_open_loses_nothing_silently(tmp_path: Path) -> None:
    """A writer that keeps its descriptor writes into the file fix replaced: fix sees it
    still open, keeps that file beside the new one and says so."""
    names = _repo(tmp_path)
    appender = _appender(tmp_path, names, HOLDER)
    try:
        while not (tmp_path / "stop.ready").exists():
            assert appender.poll() is None
            time.sleep(0.01)
        (tmp_path / "stop.ready").unlink()
        done = _fix(tmp_path, "takeover", names)
    finally:
        total = _stop(tmp_path, appender)
    assert done.returncode == 1
    copies = _check(tmp_path, total, done.stderr)
    assert len(copies) == FILES, done.stderr
    assert done.stderr.count("was open for writing by another program") == FILES
    for name in names:  # each file has fix's rewrite
        assert "tensor-fusion.ai/enabled" in (tmp_path / name).read_text()


def test_a_line_appended_between_the_last_check_and_the_replacement_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The window itself, made certain: a line lands in the file just before fix puts the new
    one in its place, after the last check. The old file, with the line, is kept."""
    names = _repo(tmp_path)
    exchange = swap._exchange

    def late_writer(temp: str, real: str) -> bool:
        with open(real, "a") as handle:
            handle.write(f"# appended {names.index(os.path.basename(real))}\n")
        return exchange(temp, real)

    monkeypatch.setattr(swap, "_exchange", late_writer)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "-p", "takeover", *names]) == 1
    err = capsys.readouterr().err
    copies = _check(tmp_path, FILES, err)
    assert [c.name for c in copies] == [f"{n}{CONFLICT}" for n in names]
    assert err.count("changed while fix replaced it: the version with the other change "
                     "is kept in") == FILES
    for name in names:
        assert "tensor-fusion.ai/enabled" in (tmp_path / name).read_text()
        assert "# appended" in (tmp_path / f"{name}{CONFLICT}").read_text()
