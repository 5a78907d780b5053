"""FitError-like messages and the scheduler package's import rule."""

from __future__ import annotations

from pathlib import Path

from sched_fixtures import A100, L4, allocator, cluster

from tfpolicy.scheduler import PodRequest, Reason, Unschedulable, diagnose, schedule

PACKAGE = Path(__file__).resolve().parents[2] / "tfpolicy" / "scheduler"


def test_reasons_are_counted_per_node_and_per_gpu() -> None:
    nodes = {f"a{i:02d}": ("p", A100, 2) for i in range(12)}
    nodes |= {f"l{i}": ("p", L4, 2) for i in range(4)}
    alloc = allocator(cluster(nodes))
    for node in range(12):  # leave every A100 with 10 GiB free
        for g in range(2):
            got = schedule(alloc, PodRequest(name=f"f{node}-{g}", pool="p",
                                             tflops_request=1_000, vram_request=71_680))
            assert not isinstance(got, Unschedulable)
    pod = PodRequest(name="big", pool="p", tflops_request=1_000, vram_request=20_480,
                     gpu_model="NVIDIA A100-SXM4-80GB")
    got = alloc.choose(pod)
    assert isinstance(got, Unschedulable)
    assert got.message == "0/16 nodes are available: 12 insufficient VRAM, 4 GPU model mismatch."
    assert got.gpu_reasons == ((Reason.INSUFFICIENT_VRAM, 24), (Reason.MODEL_MISMATCH, 8))
    assert got == diagnose(alloc.ledger, pod)


def test_too_few_gpus_on_any_node() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 2), "b": (None, A100, 2)}))
    got = alloc.choose(PodRequest(name="x", pool="p", count=3, tflops_request=1_000))
    assert isinstance(got, Unschedulable)
    assert got.message == ("0/2 nodes are available: 1 no GPU of the pool, "
                           "1 too few matching GPUs on the node.")


def test_unknown_pool() -> None:
    alloc = allocator(cluster({"a": ("p", A100, 1)}))
    got = alloc.choose(PodRequest(name="x", pool="nope", tflops_request=1_000))
    assert isinstance(got, Unschedulable)
    assert got.message == "0/1 nodes are available: 1 no GPU of the pool."
