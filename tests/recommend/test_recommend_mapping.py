"""Pods back to workloads by the controllers' naming rules; answers and policies (pure)."""

from __future__ import annotations

import pytest

from tfpolicy.errors import TfpolicyError
from tfpolicy.recommend.core import GpuWorkload, Result, Settings, Usage, recommend
from tfpolicy.recommend.mapping import WorkloadId, map_pods
from tfpolicy.recommend.policy import binary, blocks
from tfpolicy.recommend.series import Series, parse_answer
from tfpolicy.records import replace


def ids(*specs: str) -> list[WorkloadId]:
    return [WorkloadId("ns", *spec.split("/")) for spec in specs]


@pytest.mark.parametrize(("workload", "pod", "fits"), [
    ("Deployment/web", "web-7d9f8b6c5d-x7k2p", True),
    ("Deployment/web", "web-x7k2p", False),
    ("Deployment/web", "web-7d9f8b6c5d-x7k2a", False),  # 'a' is not in the safe alphabet
    ("StatefulSet/db", "db-0", True),
    ("StatefulSet/db", "db-12", True),
    ("StatefulSet/db", "db-01", False),
    ("Job/etl", "etl-b4c2d", True),
    ("CronJob/eval", "eval-29420160-b4c2d", True),
    ("DaemonSet/agent", "agent-b4c2d", True),
    ("PyTorchJob/ddp", "ddp-master-0", True),
    ("PyTorchJob/ddp", "ddp-worker-3", True),
    ("MPIJob/mpi", "mpi-launcher", True),
    ("RayCluster/ray", "ray-gpu-workers-worker-k8s2z", True),
    ("RayCluster/ray", "ray-head-k8s2z", True),
    ("LeaderWorkerSet/lws", "lws-0-1", True),
    ("Pod/solo", "solo", True),
    ("RayJob/rj", "rj-raycluster-k8s2z-head-b4c2d", False),  # named by its RayCluster
])
def test_naming_rules(workload: str, pod: str, fits: bool) -> None:
    mapping = map_pods({("ns", pod)}, ids(workload))
    assert (("ns", pod) in mapping.owners) is fits


def test_other_namespace_never_maps() -> None:
    assert map_pods({("other", "db-0")}, ids("StatefulSet/db")).owners == {}


def test_two_possible_owners_are_ambiguous_not_guessed() -> None:
    workloads = ids("Deployment/a", "ReplicaSet/a-7d9f8b6c5d")
    mapping = map_pods({("ns", "a-7d9f8b6c5d-x7k2p")}, workloads)
    assert mapping.owners == {}
    assert mapping.ambiguous == {("ns", "a-7d9f8b6c5d-x7k2p"): tuple(sorted(workloads))}


def answer(*series: dict[str, object], **extra: object) -> dict[str, object]:
    return {"status": "success", "data": {"resultType": "matrix", "result": list(series)},
            **extra}


def item(pod: str, values: list[list[object]], **labels: str) -> dict[str, object]:
    return {"metric": {"namespace": "ns", "pod": pod, **labels}, "values": values}


@pytest.mark.parametrize(("given", "message"), [
    ({"status": "error", "errorType": "timeout", "error": "query timed out"},
     "answered an error: timeout: query timed out"),
    (answer(warnings=["partial"]), "warnings (partial data)"),
    ({"status": "success", "data": {"resultType": "vector", "result": []}}, "matrix"),
    (answer({"metric": {"pod": "p"}, "values": []}), "without the namespace and pod labels"),
    (answer(item("p", [[1, "x"]])), "not [time, \"value\"]"),
    (answer(item("p", [[1, "NaN"]])), "finite non-negative"),
    ([1, 2], "not a Prometheus API answer"),
])
def test_unusable_answers_are_one_line_errors(given: object, message: str) -> None:
    with pytest.raises(TfpolicyError, match="activity answer") as caught:
        parse_answer(given, "activity answer")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def steady(pod: str, value: float, count: int, model: str = "NVIDIA L4") -> Series:
    return Series("ns", pod, model, tuple((600.0 * i, value) for i in range(count)))


def run(activity: list[Series], utilization: list[Series] | None = None,
        framebuffer: list[Series] | None = None, **settings: float) -> object:
    model = activity[0].model
    usage = Usage(activity, utilization or [], framebuffer if framebuffer is not None
                  else [steady("web-0", 4096.0, 2, model)])
    return recommend([GpuWorkload(WorkloadId("ns", "StatefulSet", "web"), "")], usage,
                     Settings(window=7 * 86400.0, min_samples=int(settings.get("min", 60))))


def left(result: object) -> str:
    return str(result.left_out[0][1]) if result.left_out else ""  # type: ignore[attr-defined]


def test_a_steady_workload_is_sized_by_hand() -> None:
    result = run([steady("web-0", 0.25, 100)])
    (rec,) = result.recommended  # type: ignore[attr-defined]
    # 0.25 × 121 TFLOPS (L4) = 30.25 → bucket ⌊ln(16.125)/ln 1.05⌋ = ⌊56.986⌋ = 56, its end
    # 2 × (1.05⁵⁷ − 1) = 2 × 15.136 = 30.27; × 1.15 = 34.81 → 34 for request (P50) and limit
    assert (rec.tflops.request, rec.tflops.limit) == (34, 34)
    assert rec.vram.request == rec.vram.limit >= int(4096 * 2**20 * 1.15)
    assert rec.takeover == ""


def test_too_little_data_and_the_initial_delay() -> None:
    assert "too little data: 10 samples" in left(run([steady("web-0", 0.2, 10)]))
    # 100 samples in 20 minutes: under the 30-minute initial delay
    fast = Series("ns", "web-0", "NVIDIA L4", tuple((12.0 * i, 0.2) for i in range(100)))
    assert "over 19m" in left(run([fast]))


def test_models_must_be_one_and_known() -> None:
    two = [steady("web-0", 0.2, 100), steady("web-1", 0.2, 100, "NVIDIA A100-SXM4-80GB")]
    assert "several GPU models" in left(run(two))
    assert "not in the GPU tables" in left(run([steady("web-0", 0.2, 100, "Made Up GPU")]))
    assert "modelName" in left(run([steady("web-0", 0.2, 100, "")]))


def test_no_framebuffer_is_left_out() -> None:
    assert "DCGM_FI_DEV_FB_USED" in left(run([steady("web-0", 0.2, 100)], framebuffer=[]))


def test_utilization_only_where_activity_is_missing() -> None:
    result = run([steady("web-0", 0.25, 100)], [steady("web-0", 90.0, 100),
                                                 steady("web-1", 25.0, 100)])
    (rec,) = result.recommended  # type: ignore[attr-defined]
    assert rec.evidence.pods == 2 and rec.tflops.limit == 34  # web-0's 90 % is not used


def test_near_a_whole_card_is_takeover() -> None:
    (rec,) = run([steady("web-0", 0.95, 100)]).recommended  # type: ignore[attr-defined]
    assert rec.takeover.startswith("TFLOPS upper estimate")


def test_binary_rounds_up_to_mib() -> None:
    assert binary(8 << 30) == "8Gi"
    assert binary((8 << 30) + 1) == "8193Mi"
    assert binary(1536 << 20) == "1536Mi"


def test_a_match_that_would_catch_another_workload_leaves_it_out() -> None:
    (rec,) = run([steady("web-0", 0.25, 100)]).recommended  # type: ignore[attr-defined]
    api = replace(rec, id=WorkloadId("ns", "Deployment", "api"))
    # kinds {StatefulSet, Deployment} × names {web, api} would also select Deployment web
    caught = WorkloadId("ns", "Deployment", "web")
    docs, after = blocks(Result([rec, api], []), [rec.id, api.id, caught])
    assert [d.data["spec"]["match"]["names"] for d in docs] == [["api"]]
    assert after.left_out == [(rec.id, "its match would also select a same-named workload "
                                       "sized apart")]
    docs, after = blocks(Result([rec, api], []), [rec.id, api.id])
    assert docs[0].data["spec"]["match"]["names"] == ["api", "web"] and not after.left_out


def test_the_template_qos_chooses_the_request() -> None:
    from tfpolicy.recommend.manifests import gpu_workloads
    template = {"metadata": {"annotations": {"tensor-fusion.ai/qos": "critical"}},
                "spec": {"containers": [{"name": "c", "resources": {
                    "limits": {"nvidia.com/gpu": 1}}}]}}
    opted_out = {"metadata": {"labels": {"tensor-fusion.ai/enabled": "false"}},
                 "spec": template["spec"]}
    docs = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
             "spec": {"template": template}},
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "off"},
             "spec": {"template": opted_out}}]
    (found,) = gpu_workloads(docs, "ns")
    assert found == GpuWorkload(WorkloadId("ns", "StatefulSet", "web"), "critical")
    activity = [Series("ns", "web-0", "NVIDIA L4",
                       tuple((600.0 * i, 0.1 if i % 2 else 0.4) for i in range(100)))]
    fb = [steady("web-0", 4096.0, 2)]
    by_qos = {qos: recommend([GpuWorkload(found.id, qos)], Usage(activity, [], fb),
                             Settings(window=7 * 86400.0)).recommended[0].tflops
              for qos in ("critical", "")}
    # critical: request = upper estimate = limit; the default medium: request = lower
    assert by_qos["critical"].request == by_qos["critical"].limit
    assert by_qos[""].request < by_qos[""].limit == by_qos["critical"].limit


def test_kinds_without_a_naming_rule_are_reported() -> None:
    workload = GpuWorkload(WorkloadId("ns", "RayJob", "rj"), "")
    result = recommend([workload], Usage([steady("rj-raycluster-k8s2z-head-b4c2d", 0.2, 100)],
                                         [], []), Settings(window=86400.0))
    assert result.left_out == [(workload.id, "the pods of a RayJob cannot be told by name "
                                             "(not mapped)")]
