"""Start-up: the CPU of a whole ``tfpolicy`` process on little work, against a bare
interpreter's.

Hosts (pre-commit, kpt, kustomize, ArgoCD) start tfpolicy once per file or
render, so most of what they pay is the start. Each command below runs
``--runs`` times (default 9) in turn with ``python -c pass`` of the same
interpreter, after one warm-up of each; a pair's ratio is the command's CPU
(user + system, ``os.wait4``) over the bare interpreter's in that pair, so
load from other processes hits both alike. The report gives the median CPU of
each and the median of the ratios, with the target beside.

Run it on a wheel install (not an editable one, whose import machinery costs a
start of its own): ``VENV/bin/python bench/run.py --startup-only``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SMALL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        resources:
          limits:
            nvidia.com/gpu: 1
"""


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    args: tuple[str, ...]  # after the tfpolicy console script
    target: float  # at most this many times the bare interpreter's CPU
    cwd: str = ""  # under the fixtures' folder
    env: tuple[tuple[str, str], ...] = ()


CASES = (
    Case("check -p takeover small.yaml", ("check", "-p", "takeover", "small.yaml"), 6),
    Case("apply -p takeover small.yaml", ("apply", "-p", "takeover", "small.yaml"), 6),
    Case("--help", ("--help",), 4),
    Case("--version", ("--version",), 3),
    Case("argocd generate (200 documents)", ("argocd", "generate"), 8, "app",
         (("ARGOCD_ENV_TFPOLICY_POLICIES", "takeover"),)),
)


@dataclass(frozen=True, slots=True)
class Figure:
    case: Case
    cpu: float  # median seconds of the command
    bare: float  # median seconds of the bare interpreter
    ratio: float | None  # median of the paired ratios; None when a command failed
    note: str = ""


def app_stream(documents: int = 200) -> str:
    """A plain app of ``documents`` documents, every other one a GPU Deployment."""
    parts = []
    for n in range(documents):
        if n % 2:
            parts.append(SMALL.replace("name: web", f"name: web-{n}").replace(
                "app: web", f"app: web-{n}"))
        else:
            parts.append(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{n}\n"
                         "data:\n  key: value\n")
    return "---\n".join(parts)


def fixtures(root: Path) -> Path:
    """``small.yaml`` and ``app/all.yaml`` under ``root``, written when missing."""
    (root / "app").mkdir(parents=True, exist_ok=True)
    for path, text in ((root / "small.yaml", SMALL), (root / "app" / "all.yaml", app_stream())):
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return root


def cpu_of(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """User + system seconds of one whole process, and its exit code; output discarded."""
    with open(os.devnull, "wb") as sink, open(os.devnull, "rb") as empty:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=empty, stdout=sink, stderr=sink)
        _, status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


Measure = Callable[[Sequence[str], Path, dict[str, str]], tuple[float, int]]


def paired(case: Case, tfpolicy: Path, root: Path, runs: int,
           measure: Measure = cpu_of) -> Figure:
    """``runs`` pairs of the command and a bare ``python -c pass``, one warm-up each."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env.update(case.env)
    cwd = root / case.cwd
    command, bare = [str(tfpolicy), *case.args], [sys.executable, "-c", "pass"]
    mine: list[float] = []
    base: list[float] = []
    codes: set[int] = set()
    for number in range(runs + 1):
        seconds, code = measure(command, cwd, env)
        bare_seconds, _ = measure(bare, cwd, env)
        if number:  # the first pair warms the caches
            mine.append(seconds)
            base.append(bare_seconds)
            codes.add(code)
    failed = codes - {0, 1}
    ratios = [m / b for m, b in zip(mine, base, strict=True) if b > 0]
    ratio = statistics.median(ratios) if ratios and not failed else None
    note = f"exit {max(failed)}" if failed else ""
    return Figure(case, statistics.median(mine), statistics.median(base), ratio, note)


def figures(tfpolicy: Path, root: Path, runs: int = 9,
            measure: Measure = cpu_of) -> list[Figure]:
    fixtures(root)
    return [paired(case, tfpolicy, root, runs, measure) for case in CASES]


def report(found: Sequence[Figure], runs: int) -> str:
    lines = [f"start-up: CPU of a whole process, median of {runs} paired with "
             f"`{Path(sys.executable).name} -c pass`",
             f"{'command':<34} {'CPU ms':>8} {'bare ms':>8} {'× bare':>8} {'target':>8}  notes"]
    for f in found:
        shown = "—" if f.ratio is None else f"{f.ratio:.1f}"
        lines.append(f"{f.case.name:<34} {f.cpu * 1000:>8.0f} {f.bare * 1000:>8.1f} "
                     f"{shown:>8} {'≤ ' + format(f.case.target, 'g'):>8}  {f.note}".rstrip())
    return "\n".join(lines)
