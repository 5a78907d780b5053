"""Property tests: admission never mutates its input; non-GPU pods are never touched."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy.admission import AdmissionContext, Decision, admit, webhook_config

A = "tensor-fusion.ai/"
GPU_NAMES = ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "amd.com/gpu", "huawei.com/npu"]
OTHER_NAMES = ["cpu", "memory", "example.com/fpga"]
QUANTITIES = st.one_of(st.integers(0, 8), st.sampled_from(["1", "2", "500m", "1Gi", "0", "x"]))
ANNOTATIONS = st.dictionaries(
    st.sampled_from([A + k for k in (
        "tflops-request", "tflops-limit", "vram-limit", "compute-percent-limit", "gpu-count",
        "isolation", "inject-container", "enabled-replicas", "gpu-indices", "qos",
        "dedicated-gpu", "gpu-model", "gpupool", "is-local-gpu", "sidecar-worker",
        "compute-percent-request", "vendor", "workload-profile", "gang-enabled",
        "gang-min-members", "gang-timeout")]),
    st.sampled_from(["1", "2", "10", "4Gi", "soft", "shared", "hard", "true", "main", "x", "",
                     "\u00b2", "0,1", " 3 ", "-1", "12.5", "1h30m", "AMD ", "1" * 30]),
)
LABELS = st.dictionaries(st.sampled_from([A + "enabled", "app"]),
                         st.sampled_from(["true", "false", "llm"]))
VALUES = st.sampled_from([
    None,
    {"dynamicConfig": {"autoMigration": {"enable": True}}},
    {"controller": {"nvidiaOperatorProgressiveMigration": True},
     "dynamicConfig": {"autoMigration": {"enable": True, "scope": {"includes": {}}}}},
    {"controller": {"admissionWebhooks": {"failurePolicy": "Ignore"}},
     "providerConfigs": {"nvidia": {"enabled": False}},
     "dynamicConfig": {"autoMigration": {"enable": True}}},
])


def containers(names: list[str]) -> st.SearchStrategy[list[dict[str, object]]]:
    resources = st.fixed_dictionaries({}, optional={
        "limits": st.dictionaries(st.sampled_from(names), QUANTITIES),
        "requests": st.dictionaries(st.sampled_from(names), QUANTITIES),
    })
    container = st.fixed_dictionaries(
        {"name": st.sampled_from(["main", "side", "x"])}, optional={"resources": resources})
    return st.lists(container, min_size=1, max_size=3)


def templates(names: list[str]) -> st.SearchStrategy[dict[str, object]]:
    return st.fixed_dictionaries({
        "metadata": st.fixed_dictionaries({"labels": LABELS, "annotations": ANNOTATIONS}),
        "spec": st.fixed_dictionaries({"containers": containers(names)}),
    })


@settings(max_examples=300)
@given(templates(GPU_NAMES + OTHER_NAMES), VALUES, st.sampled_from(["Deployment", "Pod", "Job"]))
def test_admission_never_mutates_its_input(tpl, values, kind) -> None:
    before = copy.deepcopy(tpl)
    result = admit(tpl, AdmissionContext("ml", "app", owner_kind=kind,
                                         webhook=webhook_config(values)))
    assert tpl == before
    assert (result.pod is None) == (result.decision is Decision.REJECTED)
    if webhook_config(values).failure_policy == "Ignore":
        assert result.decision is not Decision.REJECTED
    assert (result.allocation is not None) == (
        result.decision in (Decision.MIGRATED, Decision.TENSOR_FUSION))


@settings(max_examples=300)
@given(templates(OTHER_NAMES), VALUES)
def test_a_pod_without_gpu_resources_is_untouched(tpl, values) -> None:
    tpl["metadata"]["labels"].pop(A + "enabled", None)
    result = admit(tpl, AdmissionContext("ml", "app", webhook=webhook_config(values)))
    assert result.decision is Decision.UNTOUCHED
    assert result.changes == ()
