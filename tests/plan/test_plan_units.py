"""The plan's pure pieces: the ladder, the step policies, the admission→scheduler bridge."""

from __future__ import annotations

import pytest

from tfpolicy.admission import AllocationRequest
from tfpolicy.errors import TfpolicyError
from tfpolicy.gpus.resources import GpuResources
from tfpolicy.plan import parse_ladder, plan_steps, step_documents
from tfpolicy.plan.bridge import native_request, tf_request
from tfpolicy.scheduler import Isolation, PodKind

RIGHTSIZE = {"apiVersion": "tfpolicy.dev/v1alpha1", "kind": "MigrationPolicy",
             "metadata": {"name": "r"},
             "spec": {"stage": "rightsize", "isolation": "soft",
                      "resources": {"vram": {"limit": "8Gi"}},
                      "workloads": [{"match": {"names": ["a"]}, "enabledReplicas": 2,
                                     "resources": {"vram": {"limit": "4Gi"}}}]}}


def test_ladder() -> None:
    assert parse_ladder("1, 25%,100%") == (1, "25%", "100%")
    with pytest.raises(TfpolicyError):
        parse_ladder("0")


def test_takeover_then_rightsize() -> None:
    steps = plan_steps([RIGHTSIZE], (1, "100%"))
    assert [s.name for s in steps] == ["takeover-1", "takeover-100", "rightsize-1",
                                       "rightsize-100"]
    first = step_documents([RIGHTSIZE], steps[0])[0]["spec"]
    assert first == {"stage": "takeover", "enabledReplicas": 1}
    last = step_documents([RIGHTSIZE], steps[3])[0]["spec"]
    assert last["stage"] == "rightsize" and "enabledReplicas" not in last
    assert last["workloads"] == [{"match": {"names": ["a"]},
                                  "resources": {"vram": {"limit": "4Gi"}}}]
    assert RIGHTSIZE["spec"]["stage"] == "rightsize"  # inputs untouched


def test_own_cap_is_kept() -> None:
    doc = {**RIGHTSIZE, "spec": {"stage": "takeover", "enabledReplicas": "25%"}}
    for step in plan_steps([doc], (1, "100%")):
        assert step_documents([doc], step)[0]["spec"]["enabledReplicas"] == "25%"


def test_percent_stays_exact() -> None:
    """Admission and the scheduler both count milli-percent: 12.5 % is not rounded."""
    alloc = AllocationRequest("p", "ns", "w", 2, 0, 0, 12_500, 50_000, 1024, 2048, "soft",
                              "medium", vendor="NVIDIA")
    pod = tf_request("pod-0", "Deployment/ns/w", alloc)
    assert (pod.percent_request, pod.percent_limit) == (12_500, 50_000)
    assert (pod.count, pod.isolation, pod.pool, pod.gpu_model) == (2, Isolation.SOFT, "p", None)


def test_partitioned_and_gpu_indices_reach_the_scheduler() -> None:
    """The scheduler refuses partitioned under Dynamic and filters by gpu-indices itself,
    so the bridge must hand both over as they are, not as soft and unpinned."""
    alloc = AllocationRequest("p", "ns", "w", 2, 10_000, 10_000, 0, 0, 1024, 1024,
                              "partitioned", "medium", gpu_indices=(0, 2))
    pod = tf_request("pod-0", "Deployment/ns/w", alloc)
    assert (pod.isolation, pod.gpu_indices) == (Isolation.PARTITIONED, (0, 2))


def test_native_pod_is_device_plugin() -> None:
    pod = {"spec": {"containers": [{"name": "a", "resources": {"limits": {
        "nvidia.com/mig-1g.10gb": 1, "nvidia.com/gpu": 2}}}]}}
    request = native_request("p-0", "ns", "w", pod, GpuResources())
    assert request is not None
    assert (request.kind, request.count, request.vendor) == (PodKind.DEVICE_PLUGIN, 3, "NVIDIA")
    assert native_request("p-0", "ns", "w", {"spec": {"containers": [{}]}}, GpuResources()) is None
