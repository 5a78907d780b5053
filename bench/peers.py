"""tfpolicy beside the tools the same hosts already run, on the same input.

Users do not compare tfpolicy with a bare interpreter: a pre-commit user runs
``yamllint`` on the same files, an Argo CD app is rendered by ``kustomize``
whether tfpolicy rewrites it or not. Each comparison runs the two commands in
turn, ``--runs`` pairs after one warm-up pair; a figure is the CPU (user +
system, ``os.wait4``, children reaped included) of a whole process, and the
ratio the median of the per-pair ratios, so load from other processes on the
machine hits both alike.

- ``check -p takeover`` and ``apply -p takeover`` on one GPU Deployment against
  ``yamllint -d relaxed`` on the same file (yamllint of this interpreter's
  environment, else the one on PATH);
- ``argocd generate`` on a kustomize app of 200 documents (``kustomization.yaml``
  naming one file) against the kustomize it runs (``kustomize build .`` when
  installed, else ``kubectl kustomize .``, as ``tfpolicy.hosts.appsource``
  chooses) alone on the same app.

A peer that is not installed is reported as absent, never guessed.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import startup

KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" \
                "resources:\n- all.yaml\n"


@dataclass(frozen=True, slots=True)
class Pair:
    name: str
    args: tuple[str, ...]  # after the tfpolicy console script
    peer: str  # the peer's name, as found or reported absent
    cwd: str  # under the fixtures' folder
    target: float  # at most this many times the peer's CPU
    env: tuple[tuple[str, str], ...] = ()


PAIRS = (
    Pair("check -p takeover small.yaml", ("check", "-p", "takeover", "small.yaml"),
         "yamllint", "", 1.0),
    Pair("apply -p takeover small.yaml", ("apply", "-p", "takeover", "small.yaml"),
         "yamllint", "", 1.0),
    Pair("argocd generate (kustomize, 200 documents)", ("argocd", "generate"), "kustomize",
         "kapp", 2.0, (("ARGOCD_ENV_TFPOLICY_POLICIES", "takeover"),)),
)


@dataclass(frozen=True, slots=True)
class Compared:
    pair: Pair
    peer_argv: tuple[str, ...]  # empty when the peer is absent
    cpu: float = 0.0  # median seconds of tfpolicy
    peer_cpu: float = 0.0  # median seconds of the peer
    ratio: float | None = None  # median of the paired ratios; None when absent or failed
    note: str = ""


def peer_argv(peer: str) -> tuple[str, ...]:
    """The peer's command line, or ``()`` when it is not installed."""
    if peer == "yamllint":
        beside = Path(sys.executable).with_name("yamllint")
        found = str(beside) if beside.exists() else shutil.which("yamllint")
        return (found, "-d", "relaxed", "small.yaml") if found else ()
    if kustomize := shutil.which("kustomize"):
        return (kustomize, "build", ".")
    kubectl = shutil.which("kubectl")
    return (kubectl, "kustomize", ".") if kubectl else ()


def fixtures(root: Path) -> Path:
    """The start-up fixtures, and ``kapp/``: their 200 documents as a kustomize app."""
    startup.fixtures(root)
    (root / "kapp").mkdir(exist_ok=True)
    for name, text in (("all.yaml", startup.app_stream()),
                       ("kustomization.yaml", KUSTOMIZATION)):
        path = root / "kapp" / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return root


def compare(pair: Pair, tfpolicy: Path, root: Path, runs: int,
            measure: startup.Measure = startup.cpu_of) -> Compared:
    """``runs`` pairs of tfpolicy and its peer, in turn, after one warm-up pair."""
    other = peer_argv(pair.peer)
    if not other:
        return Compared(pair, other, note=f"{pair.peer} absent")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    env.update(pair.env)
    cwd = root / pair.cwd
    mine: list[float] = []
    theirs: list[float] = []
    codes: set[int] = set()
    for number in range(runs + 1):
        seconds, code = measure([str(tfpolicy), *pair.args], cwd, env)
        peer_seconds, peer_code = measure(other, cwd, env)
        if number:  # the first pair warms the caches
            mine.append(seconds)
            theirs.append(peer_seconds)
            codes |= {code, 100 + peer_code if peer_code else 0}
    failed = codes - {0, 1}
    ratios = [m / t for m, t in zip(mine, theirs, strict=True) if t > 0]
    note = (f"tfpolicy exit {max(failed)}" if max(failed, default=0) < 100
            else f"{pair.peer} exit {max(failed) - 100}") if failed else ""
    ratio = statistics.median(ratios) if ratios and not failed else None
    return Compared(pair, other, statistics.median(mine), statistics.median(theirs), ratio,
                    note)


def figures(tfpolicy: Path, root: Path, runs: int = 9,
            measure: startup.Measure = startup.cpu_of) -> list[Compared]:
    fixtures(root)
    return [compare(pair, tfpolicy, root, runs, measure) for pair in PAIRS]


def report(found: Sequence[Compared], runs: int) -> str:
    lines = [f"beside the peers: CPU of whole processes, median of {runs} pairs in turn",
             f"{'tfpolicy command':<44} {'CPU ms':>7} {'peer':<26} {'CPU ms':>7} "
             f"{'ratio':>6} {'target':>7}  notes"]
    for f in found:
        peer = " ".join(Path(f.peer_argv[0]).name.split() + list(f.peer_argv[1:-1])) \
            if f.peer_argv else f.pair.peer
        mine = f"{f.cpu * 1000:.0f}" if f.peer_argv else "—"
        theirs = f"{f.peer_cpu * 1000:.0f}" if f.peer_argv else "—"
        shown = "—" if f.ratio is None else f"{f.ratio:.2f}"
        lines.append(f"{f.pair.name:<44} {mine:>7} {peer:<26} {theirs:>7} {shown:>6} "
                     f"{'≤ ' + format(f.pair.target, 'g'):>7}  {f.note}".rstrip())
    return "\n".join(lines)
