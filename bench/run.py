"""Time ``tfpolicy apply`` and ``tfpolicy fix`` against a PyYAML floor, on one corpus.

``python bench/run.py [--n 10000] [--repeat 3]`` generates the corpus into
``bench/out/`` when it is missing (``gen_corpus.py``, fixed seed), then runs
``--repeat`` rounds; each round runs, back to back and each in a child
process so that its time and peak RSS are its own:

1. **floor**: PyYAML's libyaml loader and dumper, ``load_all`` then
   ``dump_all`` of the whole stream, written to a file: the cost of merely
   parsing and re-printing the bytes;
2. **apply**: ``tfpolicy apply -p takeover -``, corpus on stdin, stdout to a file;
3. **fix**: ``tfpolicy fix -p takeover FILE…`` on a fresh copy of the split
   corpus (one file per document), in as few batches as the argument-size
   limit allows. Exit 1 ("files changed") counts as success.

tfpolicy runs its engine in one worker process per usable CPU (``-j``), so
a child's CPU seconds include its workers', and two peaks are shown: the
largest single process (``wait4``) and the whole process tree (its PSS,
sampled).

Each round prints its ratios to that round's floor (paired, so that load
from other processes on the machine hits both sides alike); the summary
gives the median over rounds of wall seconds, of CPU seconds and of each
ratio, and the largest peak RSS, with the targets beside.

Beside these bulk figures, the start-up ones (``startup.py``): the CPU of
whole ``tfpolicy`` processes on little work, each paired with a bare
``python -c pass`` (``--startup-runs``, default 9; ``--startup-only`` skips
the bulk steps); then the same work beside the peers the hosts already run
(``peers.py``: ``yamllint`` on one file, ``kustomize`` on an Argo CD app), paired
as well, a peer not installed reported absent. It is a report, not a test: it
always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import peers
import startup
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
    seconds: float  # wall
    peak_kb: int  # ru_maxrss of the child, KiB on Linux
    code: int
    cpu: float = 0.0  # user + system seconds of the child and its workers
    system: float = 0.0  # of which system: file creation and renames, which vary with the disk
    tree_kb: int = 0  # peak of the summed PSS of the child and its workers, sampled


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
    """Run one child to completion: wall time, CPU of it and its workers (``wait4``
    counts the children it reaped), the largest single peak RSS, and the peak of the
    proportional set size (PSS) of the whole process tree, sampled every 100 ms (more
    often takes a noticeable share of the CPUs the child uses): each page counted once,
    shared by the processes that share it (a forked worker shares most of its parent's).

    Linux carries the spawning process's own high-water mark into the child's
    ``ru_maxrss`` across ``exec`` (``subprocess`` spawns with ``vfork``), so a
    figure not above this process's own peak is not the child's: then the
    largest ``VmHWM`` sampled in the tree is taken instead (``bench_peak_kb``).
    """
    with (stdin.open("rb") if stdin else open(os.devnull, "rb")) as src, \
            stdout.open("wb") as dst, stdout.with_suffix(".stderr").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=src, stdout=dst, stderr=err, cwd=cwd)
        tree = hwm = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            pss, largest = tree_memory_kb(proc.pid)
            tree, hwm = max(tree, pss), max(hwm, largest)
            time.sleep(0.1)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss if usage.ru_maxrss > bench_peak_kb() else hwm
    return Run(seconds, peak, proc.returncode, usage.ru_utime + usage.ru_stime,
               usage.ru_stime, max(tree, peak))


def bench_peak_kb() -> int:
    """This process's own peak RSS, in KiB: a floor under any child's ``ru_maxrss``."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def tree_memory_kb(root: int) -> tuple[int, int]:
    """The memory of ``root`` and all its descendants now, in KiB: their summed PSS
    (Linux ``smaps_rollup``) and the largest peak RSS among them (``VmHWM``)."""
    total, largest, pending = 0, 0, [root]
    while pending:
        pid = pending.pop()
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) for line in rollup
                              if line.startswith("Pss:"))
            with open(f"/proc/{pid}/status") as status:
                largest = max(largest, next(int(line.split()[1]) for line in status
                                            if line.startswith("VmHWM:")))
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                pending += [int(child) for child in children.read().split()]
        except (OSError, ValueError, IndexError, StopIteration):
            continue  # gone meanwhile
    return total, largest


def count_in(path: Path, needle: bytes, chunk_size: int = 1 << 20) -> int:
    """Occurrences of ``needle`` in a file, read 1 MiB at a time: reading a 200 MB output
    whole would raise this process's peak RSS, and with it every later child's figure."""
    count, tail = 0, b""
    with path.open("rb") as src:
        while chunk := src.read(chunk_size):
            data = tail + chunk
            count += data.count(needle)
            tail = data[max(0, len(data) - len(needle) + 1):]  # too short to be counted twice
    return count


def stderr_tail(stdout: Path) -> str:
    lines = stdout.with_suffix(".stderr").read_text(errors="replace").strip().splitlines()
    return lines[-1][:160] if lines else ""


def median_run(runs: Sequence[Run]) -> Run:
    """Median wall and CPU seconds over rounds, with the largest peak RSS seen."""
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_kb for r in runs),
               max(r.code for r in runs), statistics.median(r.cpu for r in runs),
               statistics.median(r.system for r in runs), max(r.tree_kb for r in runs))


# --- the three measurements -------------------------------------------------

FLOOR_CODE = """
import sys, yaml
text = open(sys.argv[1], encoding="utf-8").read()
docs = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
sys.stdout.write(yaml.dump_all(docs, Dumper=yaml.CSafeDumper))
"""


def floor(c: Corpus) -> Result:
    out = OUT / "floor.out.yaml"
    run = run_child([sys.executable, "-c", FLOOR_CODE, str(c.stream)], None, out)
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


def apply(c: Corpus) -> Result:
    name = f"apply -p {POLICY} -"
    if why := cli_ready("apply"):
        return Result(name, None, why)
    out = OUT / "apply.out.yaml"
    run = run_child([str(TFPOLICY), "apply", "-p", POLICY, "-"], c.stream, out)
    if run.code not in (0, 1):
        return Result(name, run, f"exit {run.code}: {stderr_tail(out)}")
    taken = count_in(out, b'tensor-fusion.ai/enabled: "true"')
    return Result(name, run, f"exit {run.code}, {taken} pod templates labelled enabled")


def batches(files: Sequence[str], fixed: Sequence[str]) -> list[list[str]]:
    """Split ``files`` so that each command line fits ``execve``'s limit (ARG_MAX), with
    4 KiB to spare: as few processes as the system allows (one at ``--n 10000``).

    Each argument costs its bytes, a NUL and an ``argv`` pointer (8 bytes); so
    does each environment entry. (``xargs`` and pre-commit stop at 128 KiB by
    default, about 2,000 of these names per process; the README gives that
    figure too.)
    """
    env = sum(len(k) + len(v) + 10 for k, v in os.environ.items())
    budget = os.sysconf("SC_ARG_MAX") - 4096 - env - sum(len(a) + 9 for a in fixed)
    groups: list[list[str]] = [[]]
    used = 0
    for f in files:
        if groups[-1] and used + len(f) + 9 > budget:
            groups.append([])
            used = 0
        groups[-1].append(f)
        used += len(f) + 9
    return groups


_COPY = "import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2])"


class Copies:
    """One fresh copy of the split corpus per round, all made (and synced) before the
    first round and removed after the last, so that no timed ``fix`` runs just after
    the bench deleted a copy.

    On ext4 without a journal (this machine's disks), allocating an inode
    skips every inode freed in the last one to six minutes and looks up
    its inode-table block to tell: after the 20,000 deletions of an old copy, each
    file ``fix`` creates cost up to 0.5 ms of system time instead of ~20 µs, and
    a round's figure depended on when the previous round had cleaned up. No
    user's repository has just lost 20,000 files when ``fix`` runs. (``fix``'s
    own renames free the replaced inodes too, so later rounds may still pay some
    of it.) A copy left by an interrupted run is moved aside, not deleted, until
    this run ends.
    """

    def __init__(self, c: Corpus, rounds: int) -> None:
        self.root = OUT / "fix-work"
        self._old = OUT / f"fix-work.old-{os.getpid()}"
        if self.root.exists():
            self.root.rename(self._old)
        self.root.mkdir()
        for number in range(1, rounds + 1):  # in a child: copytree's peak would be ours
            subprocess.run([sys.executable, "-c", _COPY, c.split, self.root / f"round-{number}"],
                           check=True)
        # Untimed: fix's one flush per run (a syncfs of this disk) would otherwise also
        # write out the copies just made, which no user's repository holds unwritten.
        os.sync()

    def round(self, number: int) -> Path:
        return self.root / f"round-{number}"

    def remove(self) -> None:
        for folder in (self.root, self._old):
            shutil.rmtree(folder, ignore_errors=True)


def fix_once(work: Path) -> tuple[Run, int]:
    """One ``fix`` over a fresh copy of the split corpus, batches summed; files fixed."""
    fixed = [str(TFPOLICY), "fix", "-p", POLICY]
    runs: list[Run] = []
    changed = 0
    for group in batches(sorted(os.listdir(work)), fixed):
        runs.append(run_child([*fixed, *group], None, FIX_LOG, cwd=work))
        changed += sum(1 for ln in FIX_LOG.read_text().splitlines() if ln.startswith("Fixing "))
    codes = {r.code for r in runs}
    code = max(codes - {0, 1}, default=max(codes))  # a failure outranks "files changed"
    return Run(sum(r.seconds for r in runs), max(r.peak_kb for r in runs), code,
               sum(r.cpu for r in runs), sum(r.system for r in runs),
               max(r.tree_kb for r in runs)), changed


def fix(c: Corpus, work: Path) -> Result:
    name = f"fix -p {POLICY} FILE…"
    if why := cli_ready("fix"):
        return Result(name, None, why)
    run, changed = fix_once(work)
    if run.code not in (0, 1):
        return Result(name, run, f"exit {run.code}: {stderr_tail(FIX_LOG)}")
    return Result(name, run, f"exit {run.code}, {changed} of {c.documents} files fixed")


def one_round(c: Corpus, copies: Copies, number: int) -> list[Result]:
    """Floor, apply and fix back to back; their ratios to this round's floor printed."""
    results = [floor(c), apply(c), fix(c, copies.round(number))]
    base = results[0].run
    parts = [f"{r.name.split()[0]} {r.run.seconds:.2f} s" for r in results if r.run]
    if base and base.code == 0:
        parts += [f"{r.name.split()[0]}/floor {ratio(r.run, base)}" for r in results[1:]
                  if r.run]
    print(f"round {number}: " + ", ".join(parts), file=sys.stderr, flush=True)
    return results


def ratio(run: Run, base: Run) -> str:
    return f"{run.seconds / base.seconds:.2f} (CPU {run.cpu / max(base.cpu, 1e-9):.2f})"


# --- report ----------------------------------------------------------------

TARGETS = {"apply": "CPU <= 0.45", "fix": "CPU <= 0.6",
           "peak RSS": "flat in N, <= 100 MB at --n 50000"}


def summary(name: str, rounds: Sequence[Sequence[Result]], step: int) -> Result:
    """One step over all rounds: median seconds, median ratio, largest RSS, last note."""
    runs = [r[step].run for r in rounds]
    done = [run for run in runs if run is not None]
    if len(done) != len(runs):
        return Result(name, None, rounds[-1][step].note)
    return Result(name, median_run(done), rounds[-1][step].note)


def median_ratio(rounds: Sequence[Sequence[Result]], step: int, cpu: bool) -> float | None:
    pairs = [(r[step].run, r[0].run) for r in rounds]
    values = [(run.cpu / base.cpu) if cpu else (run.seconds / base.seconds)
              for run, base in pairs if run and base and base.code == 0]
    return statistics.median(values) if len(values) == len(pairs) else None


def row(r: Result, c: Corpus, ratios: tuple[float | None, float | None]) -> str:
    if r.run is None:
        return f"{r.name:<22} {'—':>8} {'':>8} {'':>8} {'':>13} {'':>9}  {r.note}"
    mbps = c.size / 1e6 / r.run.seconds
    shown = "/".join("—" if x is None else f"{x:.2f}" for x in ratios)
    return (f"{r.name:<22} {r.run.seconds:>8.2f} {r.run.cpu:>8.2f} {mbps:>8.2f} {shown:>13} "
            f"{r.run.peak_kb / 1024:>6.0f} MB  all processes {r.run.tree_kb / 1024:.0f} MB PSS; "
            f"system {r.run.system:.2f} s; {r.note}")


def report(c: Corpus, rounds: Sequence[Sequence[Result]]) -> str:
    names = [r.name for r in rounds[0]]
    lines = [
        f"corpus: {c.stream.relative_to(HERE.parent)} — {c.documents} documents, "
        f"{c.size / 1e6:.1f} MB (split copy: {c.split.relative_to(HERE.parent)}/); "
        f"median of {len(rounds)} paired round(s)",
        f"{'step':<22} {'wall s':>8} {'CPU s':>8} {'MB/s':>8} {'ratio wall/CPU':>13} "
        f"{'peak RSS':>9}  notes",
    ]
    for step, name in enumerate(names):
        ratios = (None, None) if step == 0 else (median_ratio(rounds, step, False),
                                                 median_ratio(rounds, step, True))
        lines.append(row(summary(name, rounds, step), c, (1.0, 1.0) if step == 0 else ratios))
    lines.append(f"bench process: {bench_peak_kb() / 1024:.0f} MB peak RSS (a child's wait4 "
                 "figure not above it is replaced by the largest VmHWM sampled in its tree)")
    lines.append("targets: " + "; ".join(f"{k}: {v}" for k, v in TARGETS.items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="workloads in the corpus")
    parser.add_argument("--repeat", type=int, default=3, help="paired rounds; medians kept")
    parser.add_argument("--startup-runs", type=int, default=9,
                        help="runs of each start-up command, paired with a bare interpreter")
    parser.add_argument("--startup-only", action="store_true",
                        help="skip the bulk steps and the plan")
    parser.add_argument("--no-plan", action="store_true",
                        help="skip the whole-process plan of 1,000 and 2,000 nodes")
    args = parser.parse_args(argv)
    if not args.startup_only:
        bulk(args.n, max(1, args.repeat))
        if not args.no_plan:
            plan(max(1, args.repeat))
    runs = max(1, args.startup_runs)
    if why := cli_ready("check"):
        print(f"start-up: {why}")
    else:
        print(startup.report(startup.figures(TFPOLICY, OUT / "startup", runs), runs))
        print(peers.report(peers.figures(TFPOLICY, OUT / "startup", runs), runs))
    return 0


def plan(repeat: int) -> None:
    """``bench_plan.py --whole-only``: ``tfpolicy plan`` of 1,000 nodes and of twice that,
    whole processes of this interpreter's install, its lines as it prints them."""
    done = subprocess.run([sys.executable, str(HERE / "bench_plan.py"), "--whole-only",
                           "--repeat", str(repeat)], capture_output=True, text=True,
                          check=False)
    lines = done.stdout.strip() or f"not available (exit {done.returncode})"
    print(f"plan (bench_plan.py --whole-only, fastest of {repeat} paired rounds):\n{lines}")


def bulk(n: int, repeat: int) -> None:
    c = corpus(n)
    copies = Copies(c, repeat)
    try:
        rounds = [one_round(c, copies, i + 1) for i in range(repeat)]
    finally:
        copies.remove()
    print(report(c, rounds))


if __name__ == "__main__":
    sys.exit(main())
