"""Time ``tfpolicy apply`` and ``tfpolicy fix`` against a PyYAML floor, on one corpus.

``python bench/run.py [--n 10000] [--repeat 3]`` generates the corpus into
``bench/out/`` when it is missing (``gen_corpus.py``, fixed seed), then runs,
each in a child process so that its peak RSS is its own:

1. **floor**: PyYAML's libyaml loader and dumper, ``load_all`` then
   ``dump_all`` of the whole stream, written to a file: the cost of merely
   parsing and re-printing the bytes;
2. **apply**: ``tfpolicy apply -p takeover -``, corpus on stdin, stdout to a file;
3. **fix**: ``tfpolicy fix -p takeover FILE…`` on a fresh copy of the split
   corpus (one file per document), in as few batches as the argument-size
   limit allows. Exit 1 ("files changed") counts as success.

For each it prints seconds (best of ``--repeat``), MB/s of corpus, the ratio
to the floor, and the peak RSS (the largest over repeats and batches), with
the targets beside. It is a report, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_corpus import write as write_corpus

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TFPOLICY = Path(sys.executable).parent / "tfpolicy"
POLICY = "takeover"
FIX_LOG = OUT / "fix.out.txt"


@dataclass(frozen=True, slots=True)
class Corpus:
    stream: Path
    split: Path
    documents: int
    size: int  # bytes of the stream


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float
    peak_kb: int  # ru_maxrss of the child, KiB on Linux
    code: int


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    run: Run | None
    note: str = ""


# --- corpus ----------------------------------------------------------------

def corpus(n: int) -> Corpus:
    """The corpus of ``n`` workloads, generated once; the JSON stamp marks it complete."""
    stream, split = OUT / f"corpus-n{n}.yaml", OUT / f"split-n{n}"
    stamp = stream.with_suffix(".json")
    if not stamp.exists():
        shutil.rmtree(split, ignore_errors=True)
        print(f"generating {stream.relative_to(HERE.parent)} …", file=sys.stderr)
        documents, size = write_corpus(n, 7, stream, split)
        stamp.write_text(json.dumps({"documents": documents, "size": size}))
    meta = json.loads(stamp.read_text())
    return Corpus(stream, split, int(meta["documents"]), int(meta["size"]))


# --- child processes -------------------------------------------------------

def run_child(argv: Sequence[str], stdin: Path | None, stdout: Path, cwd: Path | None = None,
              ) -> Run:
    """Run one child to completion; wall time and its own peak RSS (``wait4``)."""
    with (stdin.open("rb") if stdin else open(os.devnull, "rb")) as src, \
            stdout.open("wb") as dst, stdout.with_suffix(".stderr").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=src, stdout=dst, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss, proc.returncode)


def stderr_tail(stdout: Path) -> str:
    lines = stdout.with_suffix(".stderr").read_text(errors="replace").strip().splitlines()
    return lines[-1][:160] if lines else ""


def best(runs: Sequence[Run]) -> Run:
    """The fastest run, carrying the largest peak RSS seen over all of them."""
    fastest = min(runs, key=lambda r: r.seconds)
    return Run(fastest.seconds, max(r.peak_kb for r in runs), fastest.code)


# --- the three measurements -------------------------------------------------

FLOOR_CODE = """
import sys, yaml
text = open(sys.argv[1], encoding="utf-8").read()
docs = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
sys.stdout.write(yaml.dump_all(docs, Dumper=yaml.CSafeDumper))
"""


def floor(c: Corpus, repeat: int) -> Result:
    out = OUT / "floor.out.yaml"
    runs = [run_child([sys.executable, "-c", FLOOR_CODE, str(c.stream)], None, out)
            for _ in range(repeat)]
    run = best(runs)
    return Result("floor (PyYAML C)", run, "" if run.code == 0 else stderr_tail(out))


def cli_ready(command: str) -> str:
    """Empty when ``tfpolicy <command> --help`` works, else why not."""
    if not TFPOLICY.exists():
        return f"{TFPOLICY} not installed"
    probe = subprocess.run([str(TFPOLICY), command, "--help"], capture_output=True, text=True)
    if probe.returncode == 0:
        return ""
    lines = (probe.stderr or probe.stdout).strip().splitlines()
    return f"not available: {lines[-1][:120] if lines else f'exit {probe.returncode}'}"


def apply(c: Corpus, repeat: int) -> Result:
    name = f"apply -p {POLICY} -"
    if why := cli_ready("apply"):
        return Result(name, None, why)
    out = OUT / "apply.out.yaml"
    run = best([run_child([str(TFPOLICY), "apply", "-p", POLICY, "-"], c.stream, out)
                for _ in range(repeat)])
    if run.code not in (0, 1):
        return Result(name, run, f"exit {run.code}: {stderr_tail(out)}")
    taken = out.read_bytes().count(b'tensor-fusion.ai/enabled: "true"')
    return Result(name, run, f"exit {run.code}, {taken} pod templates labelled enabled")


def batches(files: Sequence[str], fixed: Sequence[str]) -> list[list[str]]:
    """Split ``files`` so that each command line stays well under ARG_MAX.

    Each argument costs its bytes, a NUL and an ``argv`` pointer (8 bytes).
    """
    env = sum(len(k) + len(v) + 10 for k, v in os.environ.items())
    budget = os.sysconf("SC_ARG_MAX") // 2 - env - sum(len(a) + 9 for a in fixed)
    groups: list[list[str]] = [[]]
    used = 0
    for f in files:
        if groups[-1] and used + len(f) + 9 > budget:
            groups.append([])
            used = 0
        groups[-1].append(f)
        used += len(f) + 9
    return groups


def fix_once(c: Corpus) -> tuple[Run, int]:
    """One ``fix`` over a fresh copy of the split corpus, batches summed; files fixed."""
    work = OUT / "fix-work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(c.split, work)
    fixed = [str(TFPOLICY), "fix", "-p", POLICY]
    runs: list[Run] = []
    changed = 0
    for group in batches(sorted(os.listdir(work)), fixed):
        runs.append(run_child([*fixed, *group], None, FIX_LOG, cwd=work))
        changed += sum(1 for ln in FIX_LOG.read_text().splitlines() if ln.startswith("Fixing "))
    codes = {r.code for r in runs}
    code = max(codes - {0, 1}, default=max(codes))  # a failure outranks "files changed"
    return Run(sum(r.seconds for r in runs), max(r.peak_kb for r in runs), code), changed


def fix(c: Corpus, repeat: int) -> Result:
    name = f"fix -p {POLICY} FILE…"
    if why := cli_ready("fix"):
        return Result(name, None, why)
    runs = [fix_once(c) for _ in range(repeat)]
    run = best([r for r, _ in runs])
    if run.code not in (0, 1):
        return Result(name, run, f"exit {run.code}: {stderr_tail(FIX_LOG)}")
    return Result(name, run, f"exit {run.code}, {runs[-1][1]} of {c.documents} files fixed")


# --- report ----------------------------------------------------------------

TARGETS = {"apply": "ratio <= 1.0, peak RSS < 150 MB", "fix": "ratio <= 1.5"}


def row(r: Result, c: Corpus, floor_seconds: float | None) -> str:
    if r.run is None:
        return f"{r.name:<22} {'—':>8} {'':>8} {'':>7} {'':>9}  {r.note}"
    mbps = c.size / 1e6 / r.run.seconds
    ratio = f"{r.run.seconds / floor_seconds:.2f}" if floor_seconds else "—"
    return (f"{r.name:<22} {r.run.seconds:>8.2f} {mbps:>8.2f} {ratio:>7} "
            f"{r.run.peak_kb / 1024:>6.0f} MB  {r.note}")


def report(c: Corpus, results: Sequence[Result]) -> str:
    floor_run = results[0].run
    floor_seconds = floor_run.seconds if floor_run and floor_run.code == 0 else None
    lines = [
        f"corpus: {c.stream.relative_to(HERE.parent)} — {c.documents} documents, "
        f"{c.size / 1e6:.1f} MB (split copy: {c.split.relative_to(HERE.parent)}/)",
        f"{'step':<22} {'seconds':>8} {'MB/s':>8} {'ratio':>7} {'peak RSS':>9}  notes",
        *(row(r, c, floor_seconds) for r in results),
        "targets: " + "; ".join(f"{k}: {v}" for k, v in TARGETS.items()),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="workloads in the corpus")
    parser.add_argument("--repeat", type=int, default=1, help="runs per step; best is kept")
    args = parser.parse_args(argv)
    c = corpus(args.n)
    repeat = max(1, args.repeat)
    results = [floor(c, repeat), apply(c, repeat), fix(c, repeat)]
    print(report(c, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
