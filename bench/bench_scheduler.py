"""Time the reference scheduler on a large generated fleet, then on twice that.

``python bench/bench_scheduler.py [--nodes 1000] [--workloads 1500]`` builds,
from a fixed seed, a fleet of ``nodes`` × 8 GPUs in two pools (A100/H100 in
one, L4/T4 in the other) and ``workloads`` workloads of about 10,000 pods
at the base size: whole-card and multi-GPU device-plugin workloads, and
workloads already on fractional TensorFusion shares. It places the
starting pods, then simulates 8 steps, each a rollout of every moving
workload: 4 takeover steps (1 replica, 25 %, 50 %, 100 % of each
device-plugin workload becomes `shared` pods) and 4 rightsize steps (the
same fractions become fractional `soft` pods; the fractional workloads
are resized too). It prints the time for the base size and for the
doubled one, and their ratio (near-linear scaling gives about 2).
It is a report, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tfpolicy.records import replace
from tfpolicy.scheduler import (
    GPU,
    FastAllocator,
    Inventory,
    Isolation,
    Ledger,
    Placement,
    PodKind,
    PodRequest,
    Pool,
    Transition,
    place_pods,
    simulate_step,
)

MODELS = {  # name: (milli-TFLOPS, MiB), reference §6 table B and §10
    "NVIDIA A100-SXM4-80GB": (312_000, 81_920), "NVIDIA H100 80GB HBM3": (989_000, 81_559),
    "NVIDIA L4": (121_000, 23_034), "Tesla T4": (65_000, 15_360),
}
POOL_MODELS = {"gpu-a": ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"),
               "gpu-b": ("NVIDIA L4", "Tesla T4")}
FRACTIONS = (None, "25%", "50%", "100%")  # None: one replica


@dataclass(frozen=True)
class Workload:
    name: str
    kind: str
    replicas: int
    pool: str
    model: str | None
    count: int
    native: bool  # starts on the device plugin (else already fractional)


def fleet(nodes: int) -> Inventory:
    pools = [Pool("gpu-a", Placement.NODE_COMPACT_GPU_LOW_LOAD, tflops_oversell=500),
             Pool("gpu-b", Placement.COMPACT_FIRST)]
    gpus = []
    for n in range(nodes):
        pool = "gpu-a" if n % 2 == 0 else "gpu-b"
        model = POOL_MODELS[pool][(n // 2) % 2]
        tflops, vram = MODELS[model]
        gpus += [GPU(f"gpu-{n:05d}-{i}", f"node-{n:05d}", pool, model, "NVIDIA", tflops, vram)
                 for i in range(8)]
    return Inventory.build(pools, gpus, default_pool="gpu-a")


def workloads(count: int, rng: random.Random) -> list[Workload]:
    made = []
    for w in range(count):
        native = w % 5 < 2
        pool = rng.choice(tuple(POOL_MODELS))
        model = rng.choice(POOL_MODELS[pool]) if rng.random() < 0.3 else None
        gpus = rng.choice((1, 1, 1, 1, 2, 4, 8)) if native else 1
        replicas = rng.choice((1, 2, 3, 4, 6)) if native else rng.choice((6, 8, 10, 12, 14))
        kind = rng.choice(("Deployment", "Deployment", "StatefulSet", "Job"))
        made.append(Workload(f"wl-{w:05d}", kind, replicas, pool, model, gpus, native))
    return made


def pod(wl: Workload, step: int, i: int, stage: str) -> PodRequest:
    base = PodRequest(name=f"{wl.name}-s{step}-{i}", namespace="bench", workload=wl.name,
                      pool=wl.pool, count=wl.count, gpu_model=wl.model)
    if stage == "native":
        return replace(base, kind=PodKind.DEVICE_PLUGIN, pool=None)
    if stage == "shared":
        return replace(base, isolation=Isolation.SHARED)
    if wl.pool == "gpu-b":  # small cards: compute percent, as the guide suggests
        percent, vram = {"rightsize": (50_000, 8_192), "fractional": (25_000, 3_072),
                          "resized": (20_000, 2_048)}[stage]
        return replace(base, percent_request=percent, percent_limit=100_000,
                       vram_request=vram, vram_limit=vram)
    tflops, vram = {"rightsize": (100_000, 20_480), "fractional": (60_000, 8_192),
                    "resized": (40_000, 6_144)}[stage]
    return replace(base, tflops_request=tflops, tflops_limit=2 * tflops,
                   vram_request=vram, vram_limit=vram)


def stage_of(wl: Workload, step: int) -> tuple[str, str, str | None]:
    """(stage of the moved pods, stage of the others, fraction) for step 1..8."""
    if not wl.native:
        return ("resized", "fractional", FRACTIONS[step - 5]) if step > 4 else ("", "", "")
    if step <= 4:
        return ("shared", "native", FRACTIONS[step - 1])
    return ("rightsize", "shared", FRACTIONS[step - 5])


def pods_at(wl: Workload, step: int) -> tuple[PodRequest, ...] | None:
    moved, rest, fraction = stage_of(wl, step)
    if not moved:
        return None
    k = 1 if fraction is None else -(-int(fraction[:-1]) * wl.replicas // 100)
    return tuple(pod(wl, step, i, moved if i < k else rest) for i in range(wl.replicas))


def run(nodes: int, count: int) -> tuple[float, int, int]:
    """Seconds for the whole simulation, steps that fit, and pods placed at start."""
    rng = random.Random(20240)
    wls = workloads(count, rng)
    start = time.perf_counter()
    ledger = Ledger(fleet(nodes))
    allocator = FastAllocator(ledger)
    current = {w.name: tuple(pod(w, 0, i, "native" if w.native else "fractional")
                             for i in range(w.replicas)) for w in wls}
    initial = [p for w in wls for p in current[w.name]]
    misfits = place_pods(allocator, initial)
    fits = 0
    for step in range(1, 9):
        transitions = []
        for w in wls:
            new = pods_at(w, step)
            if new is not None:
                transitions.append(Transition(w.name, w.kind, w.replicas, current[w.name], new))
                current[w.name] = new
        result = simulate_step(allocator, transitions)
        fits += result.fits
        if not result.fits and result.failure is not None:
            print(f"  step {step}: {result.failure.pod.name}: {result.failure.diagnosis.message}")
    print(f"  {len(initial)} starting pods, {len(misfits)} did not fit")
    return time.perf_counter() - start, fits, len(initial) - len(misfits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--workloads", type=int, default=1500)
    args = parser.parse_args(argv)
    base, fits, placed = run(args.nodes, args.workloads)
    print(f"base:    {args.nodes} nodes, {args.workloads} workloads, {placed} pods placed, "
          f"{fits}/8 steps fit: {base:.2f} s (target < 10 s)")
    double, fits, placed = run(2 * args.nodes, 2 * args.workloads)
    print(f"doubled: {2 * args.nodes} nodes, {2 * args.workloads} workloads, {placed} pods "
          f"placed, {fits}/8 steps fit: {double:.2f} s")
    print(f"ratio:   {double / base:.2f} (target <= 2.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
