"""The GPU ledger verify rebuilds on the cluster's placement (reference §5.2, §5.4)."""

from __future__ import annotations

from typing import Any

from tfpolicy.scheduler import Isolation, PodRequest
from tfpolicy.verify import Verdict, snapshot_of
from tfpolicy.verify.gpu_verdicts import check_gpus
from tfpolicy.verify.pods import PodState


def _gpu(tflops: str, vram: str, used_by: str = "tensor-fusion") -> dict[str, Any]:
    return {"apiVersion": "tensor-fusion.ai/v1", "kind": "GPU", "metadata": {"name": "gpu-a"},
            "status": {"phase": "Running", "usedBy": used_by,
                       "capacity": {"tflops": "149.7", "vram": "46068Mi"},
                       "available": {"tflops": tflops, "vram": vram}}}


def _pod(name: str, notes: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "annotations": notes or {}}}


def _check(gpu: dict[str, Any], requests: dict[str, PodRequest | None],
           pods: dict[str, str]) -> Any:
    items = [gpu, *(_pod(n, {"tensor-fusion.ai/vram-request": "1Gi"} if not w else None)
                    for n, w in pods.items())]
    snapshot = snapshot_of([("snap.yaml", {"kind": "List", "items": items})])
    states = {f"ns/{n}": (PodState(n, True, ("gpu-a",), True, None), w) for n, w in pods.items()}
    return check_gpus(snapshot, states, requests)[0]


def test_percent_request_is_truncated_to_whole_tflops() -> None:
    # 10 % of 149.7 TFLOPS is 14.97, which the ResourceFilter counts as 14 (§5.2).
    request = PodRequest("p", percent_request=10_000, vram_request=4096,
                         isolation=Isolation.SOFT)
    result = _check(_gpu("135.7", "41972Mi"), {"w": request}, {"p1": "w"})
    assert (result.expected_tflops, result.expected_vram) == (135_700, 46068 - 4096)
    assert result.problem is None


def test_a_pod_outside_the_manifests_counts_with_its_annotations() -> None:
    result = _check(_gpu("149.7", "45044Mi"), {}, {"other": ""})
    assert result.expected_vram == 46068 - 1024 and result.problem is None


def test_shared_takes_the_whole_card_and_a_mismatch_beyond_tolerance_stops() -> None:
    request = PodRequest("p", isolation=Isolation.SHARED)
    assert _check(_gpu("0", "0"), {"w": request}, {"p1": "w"}).problem is None
    off = _check(_gpu("1.5", "0"), {"w": request}, {"p1": "w"})
    assert off.problem is not None and off.problem.verdict is Verdict.STOP
    assert "reports 1.5 TFLOPS, 0 MiB available; the plan leaves 0 TFLOPS, 0 MiB" in (
        off.problem.message)


def test_within_tolerance_and_device_plugin_gpus_pass() -> None:
    request = PodRequest("p", isolation=Isolation.SHARED)
    assert _check(_gpu("0.9", "200Mi"), {"w": request}, {"p1": "w"}).problem is None
    native = _gpu("149.7", "46068Mi", used_by="nvidia-device-plugin")
    assert _check(native, {"w": request}, {"p1": "w"}).problem is None
